#include "water_curl.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// What one transfer keeps beside its handle (CURLOPT_PRIVATE): freed with it.
struct transfer {
    size_t received;
    int allow_private;
    int refused;
    char refused_address[INET6_ADDRSTRLEN];
};

// Counts what the endpoint answers and drops it; past 64 KiB the transfer is ended.
static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data;
    struct transfer *transfer = user;
    size_t bytes = size * count;
    transfer->received += bytes;
    return transfer->received > 65536 ? 0 : bytes;
}

static int ipv4_is_private(uint32_t a) {
    return (a >> 24) == 0                      // 0.0.0.0/8: "this network", unspecified
        || (a >> 24) == 10                     // 10/8
        || (a & 0xFFC00000u) == 0x64400000u    // 100.64/10: shared (CGNAT)
        || (a >> 24) == 127                    // 127/8: loopback
        || (a & 0xFFFF0000u) == 0xA9FE0000u    // 169.254/16: link-local (cloud metadata)
        || (a & 0xFFF00000u) == 0xAC100000u    // 172.16/12
        || (a & 0xFFFFFF00u) == 0xC0000000u    // 192.0.0/24: IETF protocol assignments
        || (a & 0xFFFF0000u) == 0xC0A80000u    // 192.168/16
        || (a & 0xFFFE0000u) == 0xC6120000u    // 198.18/15: benchmarking
        || (a >> 29) == 7;                     // 224/3: multicast, reserved, broadcast
}

static uint32_t ipv4_at(const unsigned char *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

static int ipv6_is_private(const unsigned char *b) {
    static const unsigned char zeros[12] = {0};
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    static const unsigned char nat64[12] = {0, 0x64, 0xFF, 0x9B};
    // ::/96 (::, ::1 and the old IPv4-compatible form), ::ffff:0:0/96 and 64:ff9b::/96 carry an
    // IPv4 address in their last four bytes; 2002::/16 (6to4) in bytes 2 to 5.
    if (memcmp(b, zeros, 12) == 0 || memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0)
        return ipv4_is_private(ipv4_at(b + 12));
    if (b[0] == 0x20 && b[1] == 0x02) return ipv4_is_private(ipv4_at(b + 2));
    return (b[0] & 0xFE) == 0xFC                 // fc00::/7: unique local
        || (b[0] == 0xFE && (b[1] & 0x80) == 0x80) // fe80::/10 link-local, fec0::/10 site-local
        || b[0] == 0xFF;                          // ff00::/8: multicast
}

int water_curl_address_is_private(const struct sockaddr *address) {
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        return ipv4_is_private(ntohl(v4->sin_addr.s_addr));
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        return ipv6_is_private(v6->sin6_addr.s6_addr);
    }
    return 1;
}

// Opens the socket for a connection libcurl is about to make, to the address the name resolved
// to: none (CURLE_COULDNT_CONNECT, and the transfer says why) for a private one unless allowed.
static curl_socket_t open_socket(void *user, curlsocktype purpose, struct curl_sockaddr *address) {
    struct transfer *transfer = user;
    if (purpose == CURLSOCKTYPE_IPCXN && !transfer->allow_private
        && water_curl_address_is_private(&address->addr)) {
        transfer->refused = 1;
        const void *bytes = address->family == AF_INET6
            ? (const void *)&((const struct sockaddr_in6 *)&address->addr)->sin6_addr
            : (const void *)&((const struct sockaddr_in *)&address->addr)->sin_addr;
        if (inet_ntop(address->family, bytes, transfer->refused_address, sizeof transfer->refused_address) == NULL)
            strcpy(transfer->refused_address, "?");
        return CURL_SOCKET_BAD;
    }
    return socket(address->family, address->socktype, address->protocol);
}

CURL *water_curl_post(const char *url, const char *body, long length, struct curl_slist *headers,
                      long timeout_ms, int allow_private) {
    CURL *handle = curl_easy_init();
    struct transfer *transfer = calloc(1, sizeof(struct transfer));
    if (handle == NULL || transfer == NULL) {
        if (handle != NULL) curl_easy_cleanup(handle);
        free(transfer);
        return NULL;
    }
    transfer->allow_private = allow_private;
    int ok = curl_easy_setopt(handle, CURLOPT_URL, url) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "https,http") == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK
        // A proxy would make the connection to the endpoint itself, past the address check.
        && curl_easy_setopt(handle, CURLOPT_PROXY, "") == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, open_socket) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, transfer) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout_ms) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, body) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, discard) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_WRITEDATA, transfer) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_PRIVATE, transfer) == CURLE_OK;
    if (!ok) {
        curl_easy_cleanup(handle);
        free(transfer);
        return NULL;
    }
    return handle;
}

long water_curl_status(CURL *handle) {
    long status = 0;
    if (curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK) return 0;
    return status;
}

int water_curl_refused(CURL *handle, char *address, size_t capacity) {
    struct transfer *transfer = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_PRIVATE, &transfer) != CURLE_OK || transfer == NULL
        || !transfer->refused)
        return 0;
    if (capacity > 0) {
        strncpy(address, transfer->refused_address, capacity - 1);
        address[capacity - 1] = '\0';
    }
    return 1;
}

void water_curl_cleanup(CURL *handle) {
    void *transfer = NULL;
    curl_easy_getinfo(handle, CURLINFO_PRIVATE, &transfer);
    curl_easy_cleanup(handle);
    free(transfer);
}
