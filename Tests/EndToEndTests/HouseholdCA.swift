import Foundation
import Testing
import WaterTestSupport

/// A household CA (`ca.pem`, `ca.key`) in `folder`, and a certificate from it for "localhost"
/// only (`server.pem`, `server.key`), made with openssl.
func makeHouseholdCA(in folder: String) throws {
    try "subjectAltName=DNS:localhost\n".write(toFile: "\(folder)/san.cnf", atomically: true, encoding: .utf8)
    for command in [
        [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=Household CA", "-keyout", "\(folder)/ca.key", "-out", "\(folder)/ca.pem",
        ],
        [
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=localhost",
            "-keyout", "\(folder)/server.key", "-out", "\(folder)/server.csr",
        ],
        [
            "x509", "-req", "-in", "\(folder)/server.csr", "-CA", "\(folder)/ca.pem", "-CAkey", "\(folder)/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "\(folder)/san.cnf", "-out", "\(folder)/server.pem",
        ],
    ] {
        let made = try ChildProcess.run("/usr/bin/openssl", command)
        try #require(made.status == 0, "openssl \(command[0]): \(made.error)")
    }
}
