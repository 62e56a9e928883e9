/**
 * Session-ticket keys for the whole fleet of edges: derived from the KEK per rotation period, so every key server
 * of a deployment hands out the same keys without talking to the others, and served to edges the access policy
 * allows ({@code allow tickets}) over the SKI endpoint.
 */
package io.elastikey.keyserver.tickets;
