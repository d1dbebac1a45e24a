#include "water_curl.h"

#include <stdlib.h>

// Counts what the endpoint answers and drops it; past 64 KiB the transfer is ended.
static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data;
    size_t *total = user;
    size_t bytes = size * count;
    *total += bytes;
    return *total > 65536 ? 0 : bytes;
}

CURL *water_curl_post(const char *url, const char *body, long length, struct curl_slist *headers,
                      long timeout_ms) {
    CURL *handle = curl_easy_init();
    size_t *received = calloc(1, sizeof(size_t));
    if (handle == NULL || received == NULL) {
        if (handle != NULL) curl_easy_cleanup(handle);
        free(received);
        return NULL;
    }
    int ok = curl_easy_setopt(handle, CURLOPT_URL, url) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "https,http") == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout_ms) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, length) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, body) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, discard) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_WRITEDATA, received) == CURLE_OK
        && curl_easy_setopt(handle, CURLOPT_PRIVATE, received) == CURLE_OK;
    if (!ok) {
        curl_easy_cleanup(handle);
        free(received);
        return NULL;
    }
    return handle;
}

long water_curl_status(CURL *handle) {
    long status = 0;
    if (curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK) return 0;
    return status;
}

void water_curl_cleanup(CURL *handle) {
    void *received = NULL;
    curl_easy_getinfo(handle, CURLINFO_PRIVATE, &received);
    curl_easy_cleanup(handle);
    free(received);
}
