package io.elastikey.keyserver.crypto;

import java.lang.reflect.InvocationTargetException;
import java.security.Provider;

/**
 * Loads, checks and installs Amazon Corretto Crypto Provider, or says why it could not.
 *
 * <p>ACCP is reached by reflection rather than imported: its jar is a per-architecture build
 * dependency (Linux x86_64 and aarch64 only), and this module must still compile and run, on
 * the JDK's providers, where no such jar exists. Reflection is used once, at start-up.
 *
 * <p>The checks follow ACCP's own advice: the class can load while its native library does not
 * ({@code getLoadingError()} then says why), and {@code assertHealthy()} runs the self-tests.
 * Only then is {@code install()} called, which puts ACCP first in the JVM's provider list so
 * that everything else in the process (JSSE, Netty's JDK fallback) benefits too.
 */
final class AccpLoader {
    static final String CLASS_NAME = "com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider";

    /** ACCP installed and healthy ({@code provider} set), or why not ({@code problem} set). */
    record Result(Provider provider, String version, String problem) {
        boolean loaded() {
            return provider != null;
        }
    }

    private AccpLoader() {
    }

    static Result load() {
        Class<?> accp;
        try {
            accp = Class.forName(CLASS_NAME);
        } catch (ClassNotFoundException e) {
            return failed("ACCP is not on the class path (it ships for Linux x86_64 and aarch64 only)");
        } catch (LinkageError e) {
            return failed("ACCP could not be loaded: " + e);
        }
        try {
            Provider instance = (Provider) accp.getField("INSTANCE").get(null);
            Object loadingError = accp.getMethod("getLoadingError").invoke(instance);
            if (loadingError != null) {
                return failed("ACCP's native library did not load: " + loadingError);
            }
            accp.getMethod("assertHealthy").invoke(instance);
            accp.getMethod("install").invoke(null);
            String version = (String) accp.getMethod("getVersionStr").invoke(instance);
            return new Result(instance, version, null);
        } catch (InvocationTargetException e) {
            return failed("ACCP failed its health check: " + e.getCause());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return failed("ACCP could not be initialised: " + e);
        }
    }

    private static Result failed(String problem) {
        return new Result(null, null, problem);
    }
}
