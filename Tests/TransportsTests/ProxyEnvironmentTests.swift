import Testing

@testable import Transports

/// The proxy an HTTP client takes from the environment, read once: what libcurl would read on every
/// transfer, in libcurl's order.
@Suite struct ProxyEnvironmentTests {
    @Test func noVariablesMeansDirect() {
        let environment = ProxyEnvironment([:])
        #expect(environment.proxy(for: "https://127.0.0.1:8443/api") == "")
        #expect(environment.proxy(for: "http://127.0.0.1:8080/api") == "")
        #expect(environment.noProxy == "")
    }

    @Test func theSchemesVariableComesBeforeAllProxy() {
        let environment = ProxyEnvironment([
            "https_proxy": "http://127.0.0.1:3128", "all_proxy": "http://127.0.0.1:9999",
        ])
        #expect(environment.proxy(for: "https://127.0.0.1:8443/x") == "http://127.0.0.1:3128")
        #expect(environment.proxy(for: "HTTPS://127.0.0.1:8443/x") == "http://127.0.0.1:3128")
        #expect(environment.proxy(for: "http://127.0.0.1:8080/x") == "http://127.0.0.1:9999")
    }

    @Test func upperCaseHTTPProxyIsIgnoredButUpperCaseHTTPSProxyIsNot() {
        let environment = ProxyEnvironment(["HTTP_PROXY": "http://127.0.0.1:1", "HTTPS_PROXY": "http://127.0.0.1:2"])
        #expect(environment.proxy(for: "http://127.0.0.1:8080/x") == "")
        #expect(environment.proxy(for: "https://127.0.0.1:8443/x") == "http://127.0.0.1:2")
    }

    @Test func lowerCaseWinsAndEmptyCountsAsUnset() {
        let environment = ProxyEnvironment([
            "https_proxy": "", "HTTPS_PROXY": "http://127.0.0.1:2", "no_proxy": "", "NO_PROXY": "127.0.0.1",
            "ALL_PROXY": "http://127.0.0.1:3",
        ])
        #expect(environment.proxy(for: "https://127.0.0.1/x") == "http://127.0.0.1:2")
        #expect(environment.proxy(for: "http://127.0.0.1/x") == "http://127.0.0.1:3")
        #expect(environment.noProxy == "127.0.0.1")
        #expect(ProxyEnvironment(["no_proxy": "*", "NO_PROXY": "x"]).noProxy == "*")
    }
}
