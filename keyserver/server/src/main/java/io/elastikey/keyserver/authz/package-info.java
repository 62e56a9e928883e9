/**
 * Client authorization: who a mutual-TLS client is ({@link io.elastikey.keyserver.authz.ClientIdentity}), which
 * keys the policy file lets it use ({@link io.elastikey.keyserver.authz.AccessPolicy}), and the per-connection
 * answer asked on every request ({@link io.elastikey.keyserver.authz.Grants}). The file format is documented on
 * {@code AccessPolicy} and, with examples, in {@code docs/authorization.md}.
 */
package io.elastikey.keyserver.authz;
