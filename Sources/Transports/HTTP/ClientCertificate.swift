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

/// How a client authenticates to an MQTT broker: a user name and password (MQTT CONNECT), and/or a
/// TLS client certificate.
package struct MQTTCredentials: Sendable, Equatable {
    package var username: String?
    package var password: String?
    package var clientCertificate: ClientCertificate?

    package init(username: String? = nil, password: String? = nil, clientCertificate: ClientCertificate? = nil) {
        self.username = username
        self.password = password
        self.clientCertificate = clientCertificate
    }

    /// `configuration` with these credentials.
    package func applied(to configuration: MQTTClient.Configuration) -> MQTTClient.Configuration {
        var configured = configuration
        configured.username = username ?? configured.username
        configured.password = password ?? configured.password
        configured.clientCertificate = clientCertificate ?? configured.clientCertificate
        return configured
    }
}
