// Wrappers over libcurl's variadic calls, which Swift cannot make: the push sender sets up one
// POST per reminder here and reads its outcome.
#ifndef WATER_CURL_H
#define WATER_CURL_H

#include <curl/curl.h>
#include <sys/socket.h>

// An easy handle that POSTs `length` bytes of `body` (copied) to `url` with `headers`: https or
// http only, no redirects, no proxy (whatever the environment says), `timeout_ms` for the whole
// transfer, the reply discarded (at most 64 KiB read). Unless `allow_private`, a connection to
// an address water_curl_address_is_private names is never opened (the check is on the address
// the name resolved to, so no name that points inside the house gets through). NULL when libcurl
// refuses an option.
CURL *water_curl_post(const char *url, const char *body, long length, struct curl_slist *headers,
                      long timeout_ms, int allow_private);

// The HTTP status of a finished transfer (0 when none came).
long water_curl_status(CURL *handle);

// Whether the transfer was refused an address (then its text, at most 46 bytes with the NUL,
// is copied to `address`): 1 or 0.
int water_curl_refused(CURL *handle, char *address, size_t capacity);

// Whether a connection to `address` (AF_INET or AF_INET6) would reach this machine or the
// house's network rather than the internet: unspecified, loopback, link-local, private (RFC
// 1918, IPv6 unique local and site-local), shared (CGNAT 100.64/10), multicast and reserved,
// and IPv4 written inside IPv6 (mapped, compatible, NAT64, 6to4) by its IPv4 address. Any other
// family: 1.
int water_curl_address_is_private(const struct sockaddr *address);

// Frees a handle water_curl_post made (after curl_multi_remove_handle).
void water_curl_cleanup(CURL *handle);

#endif
