/**
 * Session-ticket keys shared by every edge of a deployment: the set a key server hands out over its mutual-TLS SKI
 * endpoint ({@code GET /ticket-keys}) and its JSON form, read by the edges. A ticket issued by one edge then resumes
 * on any other, and no key is ever written to an edge's disk.
 */
package io.elastikey.protocol.tickets;
