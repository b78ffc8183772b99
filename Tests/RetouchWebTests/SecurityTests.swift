// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchLibrary
import Testing

@testable import RetouchWeb

/// Every refusal the web editor promises, over real HTTP on loopback, each next to the request
/// that is allowed so that a refusal of everything would fail too.
@Suite(.serialized)
final class SecurityTests {
  let folder: URL
  let editor: WebEditor
  let http: RawHTTP
  let token: String
  var auth: [String: String] { [AccessGuard.tokenHeader: token] }
  static let uploadLimit = 64 * 1024

  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "retouch-web-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let photo = folder.appendingPathComponent("grey.jpg")
    try Self.smallJPEG().write(to: photo)
    let library = try PhotoLibrary(at: folder.appendingPathComponent("Library"))
    #expect(try library.importPhotos(from: [photo]).imported.count == 1)
    var configuration = WebEditor.Configuration()
    configuration.maxUploadBytes = Self.uploadLimit
    editor = WebEditor(backend: LibraryBackend(library: library), configuration: configuration)
    try editor.start()
    http = RawHTTP(port: editor.port)
    token = editor.token
  }

  deinit {
    editor.stop(graceSeconds: 1)
    try? FileManager.default.removeItem(at: folder)
  }

  /// A 48×32 JPEG made here; another `blue` gives other bytes (the library takes a content once).
  static func smallJPEG(blue: Int = 128) throws -> Data {
    var image = Image(width: 48, height: 32, format: .rgb8)
    for y in 0..<32 { for x in 0..<48 { image.setPixel(x: x, y: y, [x * 5, y * 7, blue]) } }
    return try ImageEncoder().encode(image, as: .jpeg)
  }

  func assetID() throws -> String {
    let answer = try http.send("GET", "/api/assets", headers: auth)
    let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
    let assets = object?["assets"] as? [[String: Any]]
    return try #require(assets?.first?["id"] as? String)
  }

  func openSession() throws -> String {
    let body = Data(#"{"assetId": "\#(try assetID())"}"#.utf8)
    let answer = try http.send("POST", "/api/sessions", headers: auth, body: body)
    #expect(answer.status == 201)
    let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
    return try #require((object?["state"] as? [String: Any])?["sessionID"] as? String)
  }

  @Test func tokenIsRandomHexFromTheSystemRNG() {
    #expect(token.count == 64)
    #expect(token.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    #expect(AccessGuard.makeToken() != AccessGuard.makeToken())
  }

  @Test func requestWithoutTokenIsRefused() throws {
    #expect(try http.send("GET", "/api/assets", headers: auth).status == 200)
    #expect(try http.send("GET", "/api/assets").status == 401)
    #expect(try http.send("GET", "/").status == 401)
    #expect(try http.send("GET", "/assets/editor.js").status == 401)
  }

  @Test func wrongTokenIsRefusedInHeaderCookieAndQuery() throws {
    let wrong = String(token.reversed())
    #expect(
      try http.send("GET", "/api/assets", headers: [AccessGuard.tokenHeader: wrong]).status == 401)
    let cookie = "retouch_token_\(editor.port)"
    #expect(
      try http.send("GET", "/api/assets", headers: ["Cookie": "\(cookie)=\(wrong)"]).status == 401)
    #expect(
      try http.send("GET", "/api/assets", headers: ["Cookie": "\(cookie)=\(token)"]).status == 200)
    #expect(try http.send("GET", "/api/assets?token=\(wrong)").status == 401)
    #expect(try http.send("GET", "/api/assets?token=\(token)").status == 200)
    #expect(
      try http.send(
        "GET", "/api/assets", headers: [AccessGuard.tokenHeader: String(token.dropLast())]
      ).status == 401)
  }

  @Test func firstPageLoadTradesTheTokenForAStrictCookie() throws {
    let answer = try http.send("GET", "/?token=\(token)")
    #expect(answer.status == 303)
    #expect(answer.headers["location"] == "/")
    let cookie = try #require(answer.headers["set-cookie"])
    #expect(cookie.hasPrefix("retouch_token_\(editor.port)=\(token);"))
    #expect(cookie.contains("HttpOnly"))
    #expect(cookie.contains("SameSite=Strict"))
  }

  @Test(arguments: [
    "evil.example:PORT", "127.0.0.1", "localhost:1", "127.0.0.1.evil.example:PORT", "",
  ])
  func foreignHostIsRefused(host: String) throws {
    let value = host.replacingOccurrences(of: "PORT", with: String(editor.port))
    let answer = try http.send("GET", "/api/assets", headers: auth.merging(["Host": value]) { $1 })
    #expect(answer.status == 403)
    #expect(
      try http.send(
        "GET", "/api/assets", headers: auth.merging(["Host": "localhost:\(editor.port)"]) { $1 }
      ).status == 200)
  }

  @Test(arguments: ["http://evil.example", "null", "https://127.0.0.1:PORT", "http://127.0.0.1:1"])
  func foreignOriginIsRefused(origin: String) throws {
    let value = origin.replacingOccurrences(of: "PORT", with: String(editor.port))
    #expect(
      try http.send("GET", "/api/assets", headers: auth.merging(["Origin": value]) { $1 }).status
        == 403)
    let own = "http://127.0.0.1:\(editor.port)"
    #expect(
      try http.send("GET", "/api/assets", headers: auth.merging(["Origin": own]) { $1 }).status
        == 200)
  }

  @Test(arguments: [
    "/assets/../Package.swift", "/../../etc/passwd", "/assets/%2e%2e/%2e%2e/etc/passwd",
    "/%2e%2e/etc/passwd",
    "/assets/..%2f..%2fetc%2fpasswd", "/assets/.%2e/editor.js", "/assets//editor.js",
    "/assets/editor.js%00.png",
    "/assets/..\\..\\etc\\passwd", "/etc/passwd", "/api/../assets/editor.js",
  ])
  func pathOutsideTheAppIsRefused(path: String) throws {
    let answer = try http.send("GET", path, headers: auth)
    #expect(answer.status == 404)
    #expect(!answer.text.contains("root:"))
    #expect(!answer.text.contains("import"))
    #expect(try http.send("GET", "/assets/editor.js", headers: auth).status == 200)
  }

  @Test func oversizedUploadIsRefused() throws {
    let big = Data(repeating: 0xFF, count: Self.uploadLimit + 1)
    let answer = try http.send("POST", "/api/assets?name=big.jpg", headers: auth, body: big)
    #expect(answer.status == 413)
    let listing = try http.send("GET", "/api/assets", headers: auth)
    #expect(!listing.text.contains("big"))
  }

  @Test func oversizedChunkedUploadIsRefused() throws {
    // No Content-Length: the limit is enforced while the body streams in.
    var request = "POST /api/assets?name=chunked.jpg HTTP/1.1\r\nHost: 127.0.0.1:\(editor.port)\r\n"
    request +=
      "\(AccessGuard.tokenHeader): \(token)\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    var data = Data(request.utf8)
    let chunk = Data(repeating: 0xFF, count: 16 * 1024)
    for _ in 0..<6 { data += Data("4000\r\n".utf8) + chunk + Data("\r\n".utf8) }
    data += Data("0\r\n\r\n".utf8)
    #expect(try http.exchange(data).status == 413)
  }

  @Test func nonImageUploadWithAnImageNameIsRefused() throws {
    let answer = try http.send(
      "POST", "/api/assets?name=holiday.jpg", headers: auth, body: Data("hello, world".utf8))
    #expect(answer.status == 415)
    #expect(answer.text.contains("not a JPEG, PNG, HEIC, AVIF, WebP or TIFF"))
    // A real image goes in, whatever its name says.
    let good = try http.send(
      "POST", "/api/assets?name=notes.txt", headers: auth, body: try Self.smallJPEG(blue: 40))
    #expect(good.status == 201)
    #expect(good.text.contains("notes.jpg"))
  }

  @Test func truncatedImageUploadIsRefused() throws {
    // The header is whole (the library's header-only import alone would take it); the pixels
    // are not.
    let jpeg = try Self.smallJPEG(blue: 200)
    let answer = try http.send(
      "POST", "/api/assets?name=cut.jpg", headers: auth, body: jpeg.prefix(jpeg.count - 60))
    #expect(answer.status == 422)
    let listing = try http.send("GET", "/api/assets", headers: auth)
    #expect(!listing.text.contains("cut.jpg"))
    #expect(
      try http.send("POST", "/api/assets?name=whole.jpg", headers: auth, body: jpeg).status == 201)
  }

  @Test(arguments: ["{not json", "[1, 2]", "\"text\"", "{\"assetId\": 5}", "{}"])
  func malformedJSONIsRefused(body: String) throws {
    let answer = try http.send("POST", "/api/sessions", headers: auth, body: Data(body.utf8))
    #expect(answer.status == 400)
    #expect(answer.text.contains("\"message\""))
  }

  @Test func unknownFieldsAreRefused() throws {
    let id = try assetID()
    let extra = try http.send(
      "POST", "/api/sessions", headers: auth,
      body: Data(#"{"assetId": "\#(id)", "admin": true}"#.utf8))
    #expect(extra.status == 400)
    #expect(extra.text.contains("admin"))
    let session = try openSession()
    let inChange = #"{"change": {"settings": {"exposure": 0.1}, "sparkle": 1}, "commit": false}"#
    let answer = try http.send(
      "POST", "/api/sessions/\(session)/preview", headers: auth, body: Data(inChange.utf8))
    #expect(answer.status == 400)
    #expect(answer.text.contains("sparkle"))
    let unknownSetting = #"{"change": {"settings": {"glow": 0.1}}}"#
    #expect(
      try http.send(
        "POST", "/api/sessions/\(session)/preview", headers: auth, body: Data(unknownSetting.utf8)
      ).status == 400)
  }

  @Test func outOfRangeValuesAreRefused() throws {
    let session = try openSession()
    let path = "/api/sessions/\(session)/preview"
    let fine = try http.send(
      "POST", path, headers: auth,
      body: Data(#"{"change": {"settings": {"exposure": 1.5}}, "commit": true}"#.utf8))
    #expect(fine.status == 200)
    #expect(fine.headers["content-type"] == "image/jpeg")
    for body in [
      #"{"change": {"settings": {"exposure": 3}}, "commit": true}"#,  // 1.5 + 3 > 4 EV
      #"{"change": {"settings": {"sharpness": -0.5}}}"#,
      #"{"change": {"crop": [0.5, 0.5, 0.8, 0.8], "action": "crop"}}"#,
      #"{"change": {"look": {"look": "noir", "strength": 2}}}"#,
      #"{"change": {"settings": {"exposure": 1e308}}}"#,
      #"{"view": "sideways"}"#,
    ] {
      let answer = try http.send("POST", path, headers: auth, body: Data(body.utf8))
      #expect(answer.status == 400, "\(body)")
    }
    #expect(
      try http.send("GET", "/api/sessions/\(session)/export?format=gif", headers: auth).status
        == 400)
    #expect(
      try http.send("GET", "/api/sessions/\(session)/export?quality=101", headers: auth).status
        == 400)
  }

  @Test func responsesCarrySecurityHeaders() throws {
    for path in ["/api/assets", "/", "/api/nothing"] {
      let answer = try http.send("GET", path, headers: auth)
      #expect(answer.headers["content-security-policy"]?.hasPrefix("default-src 'self'") == true)
      #expect(answer.headers["x-content-type-options"] == "nosniff")
      #expect(answer.headers["x-frame-options"] == "DENY")
    }
    #expect(
      try http.send("GET", "/api/assets", headers: auth).headers["cache-control"] == "no-store")
  }

  @Test func laterSaveFromAnotherSessionIsRefusedUnlessOverwriting() throws {
    let first = try openSession(), second = try openSession()
    let change = Data(#"{"change": {"settings": {"exposure": 0.5}}, "commit": true}"#.utf8)
    for s in [first, second] {
      #expect(
        try http.send("POST", "/api/sessions/\(s)/preview", headers: auth, body: change).status
          == 200)
    }
    #expect(
      try http.send("POST", "/api/sessions/\(first)/save", headers: auth, body: Data("{}".utf8))
        .status == 200)
    let refused = try http.send(
      "POST", "/api/sessions/\(second)/save", headers: auth, body: Data("{}".utf8))
    #expect(refused.status == 409)
    #expect(refused.text.contains("another window"))
    let forced = try http.send(
      "POST", "/api/sessions/\(second)/save", headers: auth,
      body: Data(#"{"overwrite": true}"#.utf8))
    #expect(forced.status == 200)
  }
}
