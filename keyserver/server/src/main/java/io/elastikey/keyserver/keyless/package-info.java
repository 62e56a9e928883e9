/**
 * The Keyless binary protocol endpoint (PROTOCOLS.md section 2): Cloudflare's Keyless clients talk to the key
 * server unchanged.
 *
 * <p>Only the codec is Keyless's own. A request is framed by {@link io.elastikey.protocol.keyless.KeylessFrameDecoder},
 * turned into the {@link io.elastikey.protocol.ski.SkiRequest} that does the same operation
 * ({@link io.elastikey.protocol.keyless.KeylessOpcode#toSkiRequest}), and served by the same
 * {@link io.elastikey.keyserver.ski.SkiService} as SKI: one key repository, one authorization, one crypto engine,
 * one audit log. The pipeline ({@link io.elastikey.keyserver.keyless.KeylessInitializer}) has the same TLS context,
 * connection limit, idle timeout and client authentication as the SKI endpoint.
 */
package io.elastikey.keyserver.keyless;
