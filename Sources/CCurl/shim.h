#ifndef VITALSIM_CCURL_SHIM_H
#define VITALSIM_CCURL_SHIM_H
#include <curl/curl.h>

/* Typed wrappers: Swift cannot call the variadic curl_easy_setopt / curl_easy_getinfo. */
static inline CURLcode vitalsim_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode vitalsim_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode vitalsim_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode vitalsim_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*vitalsim_curl_write_callback)(char *, size_t, size_t, void *);
static inline CURLcode vitalsim_curl_setopt_write(CURL *h, vitalsim_curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
typedef int (*vitalsim_curl_xferinfo_callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode vitalsim_curl_setopt_xferinfo(CURL *h, vitalsim_curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode vitalsim_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode vitalsim_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode vitalsim_curl_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode vitalsim_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
#endif
