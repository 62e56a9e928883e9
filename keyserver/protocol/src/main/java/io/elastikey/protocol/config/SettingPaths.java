// SettingPaths -- start-up checks of the files and directories settings name, failing with the setting and the reason.
package io.elastikey.protocol.config;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A server checks every path its settings name before it opens anything, so a mistake ends the start with one line
 * that says which setting, which path and why ({@code tls.certificate: cannot read /etc/ek/cert.pem: no such file
 * or directory}), not with the bare path of a {@link NoSuchFileException} or the lock file deep inside a data
 * directory. The checks do what the server will do (open the file, create a file in the directory), so the reason
 * is the operating system's own: permission denied, read-only file system, not a directory.
 */
public final class SettingPaths {
    private SettingPaths() {
    }

    /**
     * Checks that {@code file} is a regular file this process can open for reading.
     *
     * @throws ConfigException naming {@code setting}, the file and the reason
     */
    public static void requireReadableFile(String setting, Path given) {
        Path file = given.toAbsolutePath();
        if (Files.isDirectory(file)) {
            throw new ConfigException(setting + ": cannot read " + file + ": is a directory, not a file");
        }
        try (SeekableByteChannel ignored = Files.newByteChannel(file)) {
            // readable
        } catch (IOException e) {
            throw new ConfigException(setting + ": cannot read " + file + ": " + reason(e, file), e);
        }
    }

    /**
     * Checks that {@code directory} is a directory this process can list.
     *
     * @throws ConfigException naming {@code setting}, the directory and the reason
     */
    public static void requireReadableDirectory(String setting, Path given) {
        Path directory = given.toAbsolutePath();
        try (var listing = Files.newDirectoryStream(directory)) {
            listing.iterator().hasNext();
        } catch (IOException e) {
            throw new ConfigException(setting + ": cannot read directory " + directory + ": " + reason(e, directory),
                    e);
        }
    }

    /**
     * Creates {@code directory} when missing and checks that this process can create files in it, by creating and
     * deleting one: a file system mounted read-only or an immutable directory shows only that way.
     *
     * @param what what the directory is for, e.g. "the data directory"
     * @throws ConfigException naming {@code setting}, the directory, what it is for and the reason
     */
    public static void requireWritableDirectory(String setting, Path given, String what) {
        Path directory = given.toAbsolutePath();
        String prefix = setting + ": cannot use " + directory + " as " + what + ": ";
        try {
            Files.createDirectories(directory);
        } catch (FileAlreadyExistsException e) {
            throw new ConfigException(prefix + "not a directory" + at(e.getFile(), directory), e);
        } catch (IOException e) {
            throw new ConfigException(prefix + reason(e, directory), e);
        }
        if (!Files.isDirectory(directory)) {
            throw new ConfigException(prefix + "not a directory");
        }
        try {
            Files.delete(Files.createTempFile(directory, ".elastikey-write-check", ".tmp"));
        } catch (IOException e) {
            // Not "(.elastikey-write-check123.tmp)" after the reason: the probe's name says nothing to an operator.
            String probe = e instanceof FileSystemException fs && fs.getFile() != null ? fs.getFile() : null;
            throw new ConfigException(prefix + "cannot create files in it: "
                    + reason(e, probe == null ? directory : Path.of(probe)), e);
        }
    }

    /**
     * What went wrong, in the words of the operating system ("no such file or directory", "permission denied",
     * "read-only file system"), followed by the file it happened to when that is not {@code subject}.
     */
    public static String reason(IOException e, Path subject) {
        String reason;
        if (e instanceof NoSuchFileException) {
            reason = "no such file or directory";
        } else if (e instanceof AccessDeniedException) {
            reason = "permission denied";
        } else if (e instanceof NotDirectoryException) {
            reason = "not a directory";
        } else if (e instanceof FileAlreadyExistsException) {
            reason = "a file is in the way";
        } else if (e instanceof FileSystemException fs && fs.getReason() != null) {
            reason = lowerFirst(fs.getReason());
        } else {
            reason = e.getMessage() == null ? e.getClass().getSimpleName() : lowerFirst(e.getMessage());
        }
        String file = e instanceof FileSystemException fs ? fs.getFile() : null;
        return reason + at(file, subject);
    }

    private static String at(String file, Path subject) {
        return file == null || Path.of(file).toAbsolutePath().normalize().equals(subject.toAbsolutePath().normalize())
                ? "" : " (" + file + ")";
    }

    private static String lowerFirst(String text) {
        return text.isEmpty() ? text : text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }
}
