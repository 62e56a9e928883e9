/**
 * The edge server's way to its key servers: {@link io.elastikey.edge.keyservers.KeyServerPool} sends each
 * handshake's one private-key operation over SKI to a healthy key server, fails over to another when one does not
 * answer, and keeps a circuit breaker and a health check per key server. Public: the pool, its options, endpoints,
 * listener, status and exception; the parts ({@code CircuitBreaker}, {@code HealthCheck}, {@code Operation},
 * {@code Endpoint}) are package-private.
 */
package io.elastikey.edge.keyservers;
