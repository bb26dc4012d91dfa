import CCurl

/// A TLS client certificate and its private key (PEM files) for servers that require mutual TLS.
package struct ClientCertificate: Sendable, Equatable {
    /// PEM certificate (chain) presented to the server.
    package var certificate: String
    /// PEM private key of the certificate.
    package var key: String

    package init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// Sets the certificate and key on a libcurl easy handle.
    func apply(to easy: UnsafeMutableRawPointer) {
        vitalsim_curl_setopt_string(easy, CURLOPT_SSLCERT, certificate)
        vitalsim_curl_setopt_string(easy, CURLOPT_SSLKEY, key)
    }
}
