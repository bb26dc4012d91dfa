/// The proxy that libcurl would take from the environment for a URL, read once rather than by
/// libcurl on every transfer (up to six `getenv` calls a request, each a scan of the
/// environment): `<scheme>_proxy` (and `HTTPS_PROXY`, but never `HTTP_PROXY`, which
/// CGI servers set from a request's `Proxy` header), then `all_proxy` or `ALL_PROXY`; hosts in
/// `no_proxy` or `NO_PROXY` go direct. An empty variable counts as unset, as libcurl counts it.
struct ProxyEnvironment: Sendable, Equatable {
    /// The proxy for `https` URLs; "" for none.
    var https: String
    /// The proxy for `http` URLs; "" for none.
    var http: String
    /// The hosts that go direct (libcurl's `CURLOPT_NOPROXY` syntax); "" for none.
    var noProxy: String

    init(_ environment: [String: String]) {
        func first(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        let all = first("all_proxy", "ALL_PROXY")
        https = first("https_proxy", "HTTPS_PROXY") ?? all ?? ""
        http = first("http_proxy") ?? all ?? ""
        noProxy = first("no_proxy", "NO_PROXY") ?? ""
    }

    /// The proxy for `url` (`CURLOPT_PROXY`: "" sends it direct).
    func proxy(for url: String) -> String {
        // Once per request: the scheme compared without building a lowercased copy.
        func scheme(_ s: String) -> Bool {
            let lower = { (c: UInt8) in (65...90).contains(c) ? c | 0x20 : c }
            return url.utf8.count >= s.utf8.count && zip(url.utf8, s.utf8).allSatisfy { lower($0) == $1 }
        }
        return scheme("https://") ? https : scheme("http://") ? http : ""
    }
}
