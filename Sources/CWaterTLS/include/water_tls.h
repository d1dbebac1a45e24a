/* The few things the server and client need of OpenSSL, as plain functions: TLS 1.3 only with
   X25519 or P-256 key exchange, the ALPN name "water/1", memory BIOs (the caller moves the bytes to and from its sockets), a key
   and self-signed certificate for `water-server init`, and the certificate's SHA-256. Swift
   cannot call OpenSSL's macros and variadic functions; this file is all that touches them. */
#ifndef WATER_TLS_H
#define WATER_TLS_H

#include <stddef.h>
#include <stdint.h>

typedef struct water_tls_context water_tls_context;
typedef struct water_tls_session water_tls_session;

/* The last OpenSSL error as text, for a message. */
void water_tls_last_error(char *buffer, size_t capacity);

/* A server context from PEM files; NULL on failure (water_tls_last_error says why). */
water_tls_context *water_tls_server_context(const char *certificate_path, const char *key_path);
/* A client context. verify_with_system_cas: check the chain against the system's CAs and the
   host name (a real certificate); otherwise any certificate is accepted by OpenSSL and the
   caller checks its fingerprint against the pinned one. */
water_tls_context *water_tls_client_context(int verify_with_system_cas);
void water_tls_context_free(water_tls_context *context);

/* A session on memory BIOs. host: for SNI and, when verifying, the name to check (may be NULL). */
water_tls_session *water_tls_session_new(water_tls_context *context, int is_server, const char *host);
void water_tls_session_free(water_tls_session *session);

/* Ciphertext from the peer into the session; returns bytes taken (all of them) or -1. */
long water_tls_feed(water_tls_session *session, const void *bytes, size_t count);
/* Advances the handshake: 1 done, 0 wants more bytes from the peer, -1 failed. */
int water_tls_handshake(water_tls_session *session);
/* Plaintext out of what was fed: bytes read, 0 when nothing more is ready now, -1 failed or
   closed by the peer. */
long water_tls_read(water_tls_session *session, void *buffer, size_t capacity);
/* Plaintext to send: 1 encrypted (take the ciphertext with water_tls_take_output), -1 failed. */
int water_tls_write(water_tls_session *session, const void *bytes, size_t count);
/* How many ciphertext bytes wait to be sent, and takes up to `capacity` of them. */
size_t water_tls_pending_output(water_tls_session *session);
size_t water_tls_take_output(water_tls_session *session, void *buffer, size_t capacity);
/* The peer's certificate's SHA-256 (32 bytes into digest); 0 when there is none. */
int water_tls_peer_fingerprint(water_tls_session *session, uint8_t digest[32]);
/* The negotiated ALPN protocol matched "water/1", and the cipher's name. */
int water_tls_alpn_ok(water_tls_session *session);
const char *water_tls_cipher(water_tls_session *session);
/* Saves the session for resumption (DER into buffer, returns length, 0 when none or too small),
   and offers a saved one on a new client session (returns 1 when accepted). */
size_t water_tls_save_session(water_tls_session *session, uint8_t *buffer, size_t capacity);
int water_tls_offer_session(water_tls_session *session, const uint8_t *bytes, size_t count);
int water_tls_session_reused(water_tls_session *session);

/* Writes a new P-256 key and a self-signed certificate for `common_name` (valid 20 years),
   both PEM, mode 0600. Returns 1, or 0 on failure. */
int water_tls_make_self_signed(const char *certificate_path, const char *key_path, const char *common_name);
/* The SHA-256 of the PEM certificate at path. Returns 1, or 0 on failure. */
int water_tls_certificate_fingerprint(const char *certificate_path, uint8_t digest[32]);

#endif
