/**
 * A sample origin for the demo and the tests: {@link io.elastikey.edge.origin.SampleOrigin}, a plain-HTTP server
 * whose paths exercise each caching rule of the edge and which counts the requests that reach it.
 */
package io.elastikey.edge.origin;
