// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A request body type whose JSON is checked strictly: the body must be one JSON object, and a
/// field the type does not know is refused rather than silently ignored (a misspelt field is a
/// bug the client wants to hear about).
public protocol StrictJSONBody: Decodable {
  /// Every top-level field the type reads.
  static var fields: Set<String> { get }
}

extension HTTPRequest {
  /// The largest JSON body accepted, in bytes.
  public static let maxJSONBytes = 1 << 20

  /// Decodes the body as `T`, refusing what is not exactly a `T`.
  ///
  /// - Throws: ``WebError`` `.tooLarge` above ``maxJSONBytes``; `.badRequest` for a body that is
  ///   not a JSON object, has a field `T` does not know, or a missing or mistyped field (the
  ///   message names the field).
  public func json<T: StrictJSONBody>(_ type: T.Type) throws(WebError) -> T {
    guard body.count <= Self.maxJSONBytes else {
      throw WebError(
        .tooLarge, source: path, detail: "a JSON body may be at most \(Self.maxJSONBytes) bytes.")
    }
    let object: Any
    do {
      object = try JSONSerialization.jsonObject(with: body.isEmpty ? Data("{}".utf8) : body)
    } catch {
      throw WebError(.badRequest, source: path, detail: "the body is not valid JSON.")
    }
    guard let fields = object as? [String: Any] else {
      throw WebError(.badRequest, source: path, detail: "the body must be a JSON object.")
    }
    if let unknown = fields.keys.sorted().first(where: { !T.fields.contains($0) }) {
      let known = T.fields.sorted().joined(separator: ", ")
      throw WebError(
        .badRequest, source: path, detail: "unknown field '\(unknown)'; known: \(known).")
    }
    do {
      return try JSONDecoder().decode(T.self, from: body.isEmpty ? Data("{}".utf8) : body)
    } catch let error as WebError {
      throw error
    } catch let DecodingError.keyNotFound(key, _) {
      throw WebError(.badRequest, source: path, detail: "missing field '\(key.stringValue)'.")
    } catch let DecodingError.typeMismatch(_, context) {
      throw WebError(
        .badRequest, source: path, detail: "wrong type at '\(Self.fieldPath(context))'.")
    } catch let DecodingError.valueNotFound(_, context) {
      throw WebError(.badRequest, source: path, detail: "null at '\(Self.fieldPath(context))'.")
    } catch let DecodingError.dataCorrupted(context) {
      throw WebError(
        .badRequest, source: path,
        detail: "\(context.debugDescription) (at '\(Self.fieldPath(context))').")
    } catch {
      throw WebError(.badRequest, source: path, detail: "\(error)")
    }
  }

  /// A query argument parsed as a number within `range`, or `defaultValue` when absent.
  ///
  /// - Throws: ``WebError`` `.badRequest` for a value that is not a whole number in range.
  public func queryInt(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int)
    throws(WebError) -> Int
  {
    guard let text = query[name] else { return defaultValue }
    guard let value = Int(text), range.contains(value) else {
      throw WebError(
        .badRequest, source: path,
        detail:
          "'\(name)' must be a whole number in \(range.lowerBound)…\(range.upperBound), not '\(text)'."
      )
    }
    return value
  }

  private static func fieldPath(_ context: DecodingError.Context) -> String {
    let p = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(
      separator: ".")
    return p.isEmpty ? "top level" : p
  }
}
