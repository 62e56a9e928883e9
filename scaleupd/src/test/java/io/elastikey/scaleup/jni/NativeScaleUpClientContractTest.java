// NativeScaleUpClientContractTest -- the shared contract, for the JNI client over libscaleup.
package io.elastikey.scaleup.jni;

import io.elastikey.scaleup.ScaleUpClient;
import io.elastikey.scaleup.ScaleUpClientContract;
import io.elastikey.scaleup.ScaleUpException;

import java.nio.file.Path;
import java.time.Duration;

class NativeScaleUpClientContractTest extends ScaleUpClientContract {

    @Override
    protected ScaleUpClient connect(Path socket, String client, Duration timeout) throws ScaleUpException {
        return new NativeScaleUpClient(socket, client, timeout);
    }
}
