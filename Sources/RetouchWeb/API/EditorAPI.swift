// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchRender

/// The web editor's REST API: every route, documented here and nowhere else.
///
/// All routes need the access token (see ``AccessGuard``). Bodies and answers are JSON
/// (`application/json`) unless noted; errors are `{"error": kind, "message": sentence}` with the
/// status of ``WebError/Kind``. API answers are never cached. Ids are opaque strings.
///
/// **Library**
/// - `GET /api/settings` → ``SettingsCatalog``: slider groups (Light, Colour, Detail, Effects),
///   each slider's id, names (en, zh), range and step; the colour mixer's bands and channels;
///   looks; aspect ratios; the straighten slider. The front end builds its controls from this.
/// - `GET /api/assets[?deleted=1]` → `{"assets": [AssetSummary]}`, newest import first.
/// - `POST /api/assets?name=FILE` with the file's bytes as the body (any Content-Type) →
///   201 `AssetSummary`. One request per file. Refused: 413 above the upload limit, 415 when
///   the bytes are not JPEG, PNG, HEIC, AVIF, WebP or TIFF (whatever the name says), 422 when
///   they do not decode.
/// - `DELETE /api/assets/ID` → 204 (to recently deleted); `POST /api/assets/ID/restore` → 204.
/// - `GET /api/assets/ID/thumbnail[?rev=N]` → JPEG, about 320 px, with the saved edit.
/// - `GET /api/edit-sessions` → `{"sessions": [EditSessionSummary]}`, newest first.
///
/// **Editing sessions** (one per opened photo; two tabs may edit the same photo, see save)
/// - `POST /api/sessions` `{"assetId": ID}` → 201 `{"state": SessionState, "previewURL": URL}`.
/// - `GET /api/sessions/SID` → `SessionState`; `DELETE /api/sessions/SID` → 204.
/// - `POST /api/sessions/SID/preview` `{"change": EditConfig, "commit": bool, "view": V}` →
///   JPEG of the committed edit + `change` (view `edited` or `uncropped`), with the session
///   state after the call as JSON in the `X-Retouch-State` header. `change` is EditConfig JSON
///   (`settings`, `crop`, `aspectRatio`, `rotation`, `look`, `action`) holding offsets from the
///   committed edit; `commit: false` shows it (a drag in progress), `commit: true` makes it an
///   undo step (consecutive commits of one slider merge into one step). Values whose result
///   leaves a slider's range are refused with 400, as are unknown fields.
/// - `GET /api/sessions/SID/preview?view=edited|uncropped|original[&rev=N]` → JPEG of the
///   committed edit (or the original, for hold-to-compare).
/// - `POST /api/sessions/SID/undo`, `POST /api/sessions/SID/redo` → `SessionState`.
/// - `GET /api/sessions/SID/looks/LOOK/thumbnail[?rev=N]` → small JPEG of the committed edit with
///   that look (`none` for none): the looks strip.
/// - `GET /api/sessions/SID/suggestions` → `{"suggestions": [SuggestionSummary]}` (may be empty);
///   `GET /api/sessions/SID/suggestions/ID/thumbnail` → JPEG;
///   `POST /api/sessions/SID/suggestions/ID/apply` → `SessionState`.
/// - `POST /api/sessions/SID/save` `{"overwrite": bool}` → `SessionState`. When another session
///   saved the same photo after this one opened (or last saved) it, the save is **refused** with
///   409 and a message, unless `overwrite` is true: the library is never left half-written and
///   no edit is lost silently.
/// - `POST /api/sessions/SID/revert` → `SessionState`: the photo goes back to its original in the
///   library (history kept) and the session to no edit, as one undo step.
/// - `GET /api/sessions/SID/export?format=jpeg|heic|avif|webp|tiff&quality=1…100` → the
///   full-resolution file as an attachment.
public enum EditorAPI {
  /// The routes, answered by `backend`.
  public static func router(backend: any WebBackend) -> Router {
    var r = Router()
    r.add("GET", "/api/settings") { _ throws(WebError) in .json(SettingsCatalog.current) }

    // Library
    r.add("GET", "/api/assets") { req throws(WebError) in
      let deleted = req.query["deleted"] == "1"
      return .json(["assets": try await backend.assets(includeDeleted: deleted)])
    }
    r.add("POST", "/api/assets") { req throws(WebError) in
      let name = req.query["name"].map { String($0.prefix(255)) } ?? "upload"
      var response = HTTPResponse.json(
        try await backend.importAsset(fileName: name, data: req.body))
      response.status = 201
      return response
    }
    r.add("DELETE", "/api/assets/:id") { req throws(WebError) in
      try await backend.deleteAsset(id: try req.parameter("id"))
      return .noContent
    }
    r.add("POST", "/api/assets/:id/restore") { req throws(WebError) in
      try await backend.restoreAsset(id: try req.parameter("id"))
      return .noContent
    }
    r.add("GET", "/api/assets/:id/thumbnail") { req throws(WebError) in
      .image(try await backend.thumbnail(assetID: try req.parameter("id")))
    }
    r.add("GET", "/api/edit-sessions") { _ throws(WebError) in
      .json(["sessions": try await backend.editSessions()])
    }

    // Sessions
    r.add("POST", "/api/sessions") { req throws(WebError) in
      let body = try req.json(OpenSessionBody.self)
      let state = try await backend.openSession(assetID: body.assetId)
      var response = HTTPResponse.json(
        OpenedSession(state: state, previewURL: previewURL(state, view: .edited)))
      response.status = 201
      return response
    }
    r.add("GET", "/api/sessions/:sid") { req throws(WebError) in
      .json(try await backend.state(session: try req.parameter("sid")))
    }
    r.add("DELETE", "/api/sessions/:sid") { req throws(WebError) in
      try await backend.closeSession(try req.parameter("sid"))
      return .noContent
    }
    r.add("POST", "/api/sessions/:sid/preview") { req throws(WebError) in
      let body = try req.json(PreviewBody.self)
      let view = try PreviewView.parse(body.view, source: req.path)
      guard view != .original else {
        throw WebError(
          .badRequest, source: req.path, detail: "'view' must be 'edited' or 'uncropped' here.")
      }
      let change = try body.change?.validatedChange(source: req.path) ?? .neutral
      let result = try await backend.preview(
        session: try req.parameter("sid"), change: change, commit: body.commit ?? false, view: view)
      var response = HTTPResponse.image(result.jpeg)
      response.headers["X-Retouch-State"] = String(decoding: stateJSON(result.state), as: UTF8.self)
      return response
    }
    r.add("GET", "/api/sessions/:sid/preview") { req throws(WebError) in
      let view = try PreviewView.parse(req.query["view"], source: req.path)
      return .image(try await backend.currentPreview(session: try req.parameter("sid"), view: view))
    }
    r.add("POST", "/api/sessions/:sid/undo") { req throws(WebError) in
      .json(try await backend.undo(session: try req.parameter("sid")))
    }
    r.add("POST", "/api/sessions/:sid/redo") { req throws(WebError) in
      .json(try await backend.redo(session: try req.parameter("sid")))
    }
    r.add("GET", "/api/sessions/:sid/looks/:look/thumbnail") { req throws(WebError) in
      let name = try req.parameter("look")
      var look: Look?
      if name != "none" {
        guard let known = Look(rawValue: name) else {
          throw WebError(.notFound, source: req.path, detail: "no look named '\(name)'.")
        }
        look = known
      }
      return .image(try await backend.lookThumbnail(session: try req.parameter("sid"), look: look))
    }
    r.add("GET", "/api/sessions/:sid/suggestions") { req throws(WebError) in
      .json(["suggestions": try await backend.suggestions(session: try req.parameter("sid"))])
    }
    r.add("GET", "/api/sessions/:sid/suggestions/:id/thumbnail") { req throws(WebError) in
      .image(
        try await backend.suggestionThumbnail(
          session: try req.parameter("sid"), id: try req.parameter("id")))
    }
    r.add("POST", "/api/sessions/:sid/suggestions/:id/apply") { req throws(WebError) in
      .json(
        try await backend.applySuggestion(
          session: try req.parameter("sid"), id: try req.parameter("id")))
    }
    r.add("POST", "/api/sessions/:sid/save") { req throws(WebError) in
      let body = try req.json(SaveBody.self)
      return .json(
        try await backend.save(
          session: try req.parameter("sid"), overwrite: body.overwrite ?? false))
    }
    r.add("POST", "/api/sessions/:sid/revert") { req throws(WebError) in
      .json(try await backend.revert(session: try req.parameter("sid")))
    }
    r.add("GET", "/api/sessions/:sid/export") { req throws(WebError) in
      let formatName = req.query["format"] ?? "jpeg"
      guard let format = ExportFormat(rawValue: formatName) else {
        throw WebError(
          .badRequest, source: req.path,
          detail: "'format' must be jpeg, heic, avif, webp or tiff, not '\(formatName)'.")
      }
      let quality = try req.queryInt("quality", in: 1...100, default: 90)
      let file = try await backend.export(
        session: try req.parameter("sid"), format: format, quality: quality)
      let safeName = String(
        file.fileName.unicodeScalars.map {
          $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_"
        })
      return HTTPResponse(
        headers: [
          "Content-Type": file.mimeType,
          "Content-Disposition": "attachment; filename=\"\(safeName)\"",
        ],
        body: file.data)
    }
    return r
  }

  /// The URL of a session's committed preview at its current revision.
  static func previewURL(_ state: SessionState, view: PreviewView) -> String {
    "/api/sessions/\(state.sessionID)/preview?view=\(view.rawValue)&rev=\(state.revision)"
  }

  static func stateJSON(_ state: SessionState) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(state)) ?? Data("{}".utf8)
  }
}

// MARK: Request and answer bodies

struct OpenSessionBody: StrictJSONBody {
  static let fields: Set<String> = ["assetId"]
  let assetId: String
}

struct OpenedSession: Encodable {
  let state: SessionState
  let previewURL: String
}

struct SaveBody: StrictJSONBody {
  static let fields: Set<String> = ["overwrite"]
  let overwrite: Bool?
}

struct PreviewBody: StrictJSONBody {
  static let fields: Set<String> = ["change", "commit", "view"]
  let change: ChangeBody?
  let commit: Bool?
  let view: String?
}

/// An `EditConfig` in its JSON form, checked field by field (unknown fields are refused).
struct ChangeBody: Decodable {
  static let fields: Set<String> = [
    "format", "version", "settings", "crop", "aspectRatio", "rotation", "look", "action",
  ]
  let json: Data

  init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: AnyKey.self)
    if let unknown = c.allKeys.map(\.stringValue).sorted().first(where: {
      !Self.fields.contains($0)
    }) {
      throw DecodingError.dataCorruptedError(
        forKey: AnyKey(stringValue: unknown), in: c,
        debugDescription:
          "unknown field '\(unknown)' in 'change'; known: \(Self.fields.sorted().joined(separator: ", "))"
      )
    }
    let config = try EditConfig(from: decoder)
    json = config.jsonData()
  }

  /// The change, its values checked for being finite and its crop for lying in the photo.
  func validatedChange(source: String) throws(WebError) -> EditConfig {
    do {
      let config = try JSONDecoder().decode(EditConfig.self, from: json)
      for (type, value) in config.properties where !value.isFinite || abs(value) > 1000 {
        throw WebError(
          .badRequest, source: source,
          detail: "'\(type.rawValue)' is \(value), not a usable offset.")
      }
      guard config.crop.isValid else {
        throw WebError(
          .badRequest, source: source,
          detail: "crop \(config.crop) must lie inside 0…1 with a positive size.")
      }
      if let look = config.look, !(0...1).contains(look.strength) {
        throw WebError(
          .badRequest, source: source, detail: "look strength is \(look.strength), allowed 0…1.")
      }
      return config
    } catch let error as WebError {
      throw error
    } catch {
      throw WebError(.badRequest, source: source, detail: "'change' is not an edit: \(error).")
    }
  }
}

struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

extension PreviewView {
  static func parse(_ text: String?, source: String) throws(WebError) -> PreviewView {
    guard let text else { return .edited }
    guard let view = PreviewView(rawValue: text) else {
      throw WebError(
        .badRequest, source: source,
        detail: "'view' must be edited, uncropped or original, not '\(text)'.")
    }
    return view
  }
}
