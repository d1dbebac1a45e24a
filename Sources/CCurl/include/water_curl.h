// Wrappers over libcurl's variadic calls, which Swift cannot make: the push sender sets up one
// POST per reminder here and reads its outcome.
#ifndef WATER_CURL_H
#define WATER_CURL_H

#include <curl/curl.h>

// An easy handle that POSTs `length` bytes of `body` (copied) to `url` with `headers`: https or
// http only, no redirects, `timeout_ms` for the whole transfer, the reply discarded (at most
// 64 KiB read). NULL when libcurl refuses an option.
CURL *water_curl_post(const char *url, const char *body, long length, struct curl_slist *headers,
                      long timeout_ms);

// The HTTP status of a finished transfer (0 when none came).
long water_curl_status(CURL *handle);

// Frees a handle water_curl_post made (after curl_multi_remove_handle).
void water_curl_cleanup(CURL *handle);

#endif
