/* See water_tls.h. */
#include "water_tls.h"

#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct water_tls_context {
    SSL_CTX *ctx;
};

struct water_tls_session {
    SSL *ssl;
    BIO *in;   /* ciphertext from the peer */
    BIO *out;  /* ciphertext to the peer */
};

static const unsigned char alpn[] = {7, 'w', 'a', 't', 'e', 'r', '/', '1'};

void water_tls_last_error(char *buffer, size_t capacity) {
    unsigned long code = ERR_get_error();
    if (code == 0) {
        snprintf(buffer, capacity, "no OpenSSL error recorded");
    } else {
        ERR_error_string_n(code, buffer, capacity);
    }
    ERR_clear_error();
}

static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *out_length, const unsigned char *in,
                       unsigned int in_length, void *unused) {
    (void)ssl;
    (void)unused;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, out_length, alpn, sizeof alpn, in, in_length) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

static SSL_CTX *tls13_context(const SSL_METHOD *method) {
    SSL_CTX *ctx = SSL_CTX_new(method);
    if (ctx == NULL) return NULL;
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    /* All three TLS 1.3 suites; ChaCha20-Poly1305 first is what a Raspberry Pi 4 (no AES
       instructions) wants, and the client's order decides. */
    SSL_CTX_set_ciphersuites(ctx, "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384");
    /* Key exchange by X25519 or P-256 only, each well under a millisecond: OpenSSL's default list
       also takes FFDHE, and one ffdhe8192 key share cost the event loop 184 ms. A client that
       offers neither is refused in the handshake (handshake_failure). 1: done, 0: failed. */
    if (SSL_CTX_set1_groups_list(ctx, "X25519:P-256") != 1) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

water_tls_context *water_tls_server_context(const char *certificate_path, const char *key_path) {
    SSL_CTX *ctx = tls13_context(TLS_server_method());
    if (ctx == NULL) return NULL;
    if (SSL_CTX_use_certificate_chain_file(ctx, certificate_path) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, key_path, SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
    /* Resumption by tickets: the server keeps no per-session state. */
    SSL_CTX_set_num_tickets(ctx, 1);
    water_tls_context *context = malloc(sizeof *context);
    context->ctx = ctx;
    return context;
}

water_tls_context *water_tls_client_context(int verify_with_system_cas) {
    SSL_CTX *ctx = tls13_context(TLS_client_method());
    if (ctx == NULL) return NULL;
    if (verify_with_system_cas) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
            SSL_CTX_free(ctx);
            return NULL;
        }
    } else {
        /* A self-signed certificate: the caller compares its fingerprint with the pinned one. */
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT);
    if (SSL_CTX_set_alpn_protos(ctx, alpn, sizeof alpn) != 0) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    water_tls_context *context = malloc(sizeof *context);
    context->ctx = ctx;
    return context;
}

void water_tls_context_free(water_tls_context *context) {
    if (context == NULL) return;
    SSL_CTX_free(context->ctx);
    free(context);
}

water_tls_session *water_tls_session_new(water_tls_context *context, int is_server, const char *host) {
    SSL *ssl = SSL_new(context->ctx);
    if (ssl == NULL) return NULL;
    BIO *in = BIO_new(BIO_s_mem());
    BIO *out = BIO_new(BIO_s_mem());
    if (in == NULL || out == NULL) {
        BIO_free(in);
        BIO_free(out);
        SSL_free(ssl);
        return NULL;
    }
    BIO_set_mem_eof_return(in, -1); /* an empty input BIO means "wait", not end of stream */
    SSL_set_bio(ssl, in, out);
    if (is_server) {
        SSL_set_accept_state(ssl);
    } else {
        SSL_set_connect_state(ssl);
        if (host != NULL && host[0] != '\0') {
            SSL_set_tlsext_host_name(ssl, host);
            if (SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER) SSL_set1_host(ssl, host);
        }
    }
    water_tls_session *session = malloc(sizeof *session);
    session->ssl = ssl;
    session->in = in;
    session->out = out;
    return session;
}

void water_tls_session_free(water_tls_session *session) {
    if (session == NULL) return;
    SSL_free(session->ssl); /* frees both BIOs */
    free(session);
}

long water_tls_feed(water_tls_session *session, const void *bytes, size_t count) {
    if (count == 0) return 0;
    int written = BIO_write(session->in, bytes, (int)count);
    return written == (int)count ? written : -1;
}

int water_tls_handshake(water_tls_session *session) {
    if (SSL_is_init_finished(session->ssl)) return 1;
    int result = SSL_do_handshake(session->ssl);
    if (result == 1) return 1;
    int error = SSL_get_error(session->ssl, result);
    return error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE ? 0 : -1;
}

long water_tls_read(water_tls_session *session, void *buffer, size_t capacity) {
    size_t read = 0;
    int result = SSL_read_ex(session->ssl, buffer, capacity, &read);
    if (result == 1) return (long)read;
    int error = SSL_get_error(session->ssl, 0);
    return error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE ? 0 : -1;
}

int water_tls_write(water_tls_session *session, const void *bytes, size_t count) {
    if (count == 0) return 1;
    size_t written = 0;
    /* Memory BIOs never fill up: a write takes everything at once. */
    return SSL_write_ex(session->ssl, bytes, count, &written) == 1 && written == count ? 1 : -1;
}

size_t water_tls_pending_output(water_tls_session *session) { return BIO_ctrl_pending(session->out); }

size_t water_tls_take_output(water_tls_session *session, void *buffer, size_t capacity) {
    int read = BIO_read(session->out, buffer, (int)(capacity > 0x7fffffff ? 0x7fffffff : capacity));
    return read > 0 ? (size_t)read : 0;
}

static int x509_fingerprint(X509 *certificate, uint8_t digest[32]) {
    unsigned int length = 0;
    return X509_digest(certificate, EVP_sha256(), digest, &length) == 1 && length == 32;
}

int water_tls_peer_fingerprint(water_tls_session *session, uint8_t digest[32]) {
    X509 *certificate = SSL_get1_peer_certificate(session->ssl);
    if (certificate == NULL) return 0;
    int ok = x509_fingerprint(certificate, digest);
    X509_free(certificate);
    return ok;
}

int water_tls_alpn_ok(water_tls_session *session) {
    const unsigned char *selected = NULL;
    unsigned int length = 0;
    SSL_get0_alpn_selected(session->ssl, &selected, &length);
    return length == alpn[0] && memcmp(selected, alpn + 1, length) == 0;
}

const char *water_tls_cipher(water_tls_session *session) { return SSL_get_cipher_name(session->ssl); }

size_t water_tls_save_session(water_tls_session *session, uint8_t *buffer, size_t capacity) {
    SSL_SESSION *saved = SSL_get1_session(session->ssl);
    if (saved == NULL) return 0;
    size_t length = 0;
    if (SSL_SESSION_is_resumable(saved)) {
        int needed = i2d_SSL_SESSION(saved, NULL);
        if (needed > 0 && (size_t)needed <= capacity) {
            unsigned char *cursor = buffer;
            length = (size_t)i2d_SSL_SESSION(saved, &cursor);
        }
    }
    SSL_SESSION_free(saved);
    return length;
}

int water_tls_offer_session(water_tls_session *session, const uint8_t *bytes, size_t count) {
    const unsigned char *cursor = bytes;
    SSL_SESSION *saved = d2i_SSL_SESSION(NULL, &cursor, (long)count);
    if (saved == NULL) return 0;
    int ok = SSL_set_session(session->ssl, saved);
    SSL_SESSION_free(saved);
    return ok;
}

int water_tls_session_reused(water_tls_session *session) { return SSL_session_reused(session->ssl); }

static int write_private(const char *path, int (*writer)(FILE *, void *), void *value) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return 0;
    FILE *file = fdopen(fd, "w");
    if (file == NULL) {
        close(fd);
        return 0;
    }
    int ok = writer(file, value);
    ok = fflush(file) == 0 && fsync(fd) == 0 && ok;
    return fclose(file) == 0 && ok;
}

static int write_key(FILE *file, void *key) {
    return PEM_write_PrivateKey(file, (EVP_PKEY *)key, NULL, NULL, 0, NULL, NULL) == 1;
}

static int write_certificate(FILE *file, void *certificate) { return PEM_write_X509(file, (X509 *)certificate) == 1; }

int water_tls_make_self_signed(const char *certificate_path, const char *key_path, const char *common_name) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *certificate = X509_new();
    int ok = key != NULL && certificate != NULL;
    if (ok) {
        unsigned char serial[16];
        FILE *random = fopen("/dev/urandom", "rb");
        ok = random != NULL && fread(serial, 1, sizeof serial, random) == sizeof serial;
        if (random != NULL) fclose(random);
        serial[0] &= 0x7f;
        BIGNUM *number = ok ? BN_bin2bn(serial, sizeof serial, NULL) : NULL;
        ok = number != NULL && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != NULL;
        BN_free(number);
    }
    if (ok) {
        X509_set_version(certificate, 2);
        X509_gmtime_adj(X509_getm_notBefore(certificate), -24 * 3600);
        X509_gmtime_adj(X509_getm_notAfter(certificate), 20L * 365 * 24 * 3600);
        X509_set_pubkey(certificate, key);
        X509_NAME *name = X509_get_subject_name(certificate);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0);
        X509_set_issuer_name(certificate, name);
        ok = X509_sign(certificate, key, EVP_sha256()) > 0;
    }
    ok = ok && write_private(key_path, write_key, key) && write_private(certificate_path, write_certificate, certificate);
    X509_free(certificate);
    EVP_PKEY_free(key);
    return ok;
}

int water_tls_certificate_fingerprint(const char *certificate_path, uint8_t digest[32]) {
    FILE *file = fopen(certificate_path, "r");
    if (file == NULL) return 0;
    X509 *certificate = PEM_read_X509(file, NULL, NULL, NULL);
    fclose(file);
    if (certificate == NULL) return 0;
    int ok = x509_fingerprint(certificate, digest);
    X509_free(certificate);
    return ok;
}
