// SPDX-License-Identifier: Apache-2.0

import CRetouchLoaders

/// Process-wide libheif set-up and error translation.
enum HEIFLibrary {
  /// libheif is loaded on first use (`rt_heif_load`, so commands that never touch a HEIF file
  /// do not pay for loading it and its codecs at start-up), then `heif_init` runs once and is
  /// never undone: `heif_deinit` would unload the codec plugins under any other thread still
  /// decoding. `nil` when both succeeded, otherwise what went wrong. (A `static let` initialiser
  /// runs exactly once, thread-safely.)
  private static let initializationFailure: String? = {
    if let reason = rt_heif_load() {
      return "libheif (the libheif1 package) could not be loaded: \(String(cString: reason))"
    }
    let error = heif_init(nil)
    return error.code == heif_error_Ok ? nil : message(of: error)
  }()

  /// Makes sure libheif is loaded and initialised; returns the reason if that failed. Call it
  /// before any other libheif function.
  static func initialize() -> String? { initializationFailure }

  /// The message libheif attached to `error` (never empty).
  static func message(of error: heif_error) -> String {
    guard let text = error.message else { return "libheif error \(error.code.rawValue)" }
    let message = String(cString: text)
    return message.isEmpty ? "libheif error \(error.code.rawValue)" : message
  }

  /// Maps a libheif error to a decoding error, with libheif's message in `detail`.
  ///
  /// `heif_error_Invalid_input` with `End_of_data` (boxes or item data past the end of the file)
  /// is truncation; unsupported file types, codecs and features are an unsupported variant; a
  /// security limit (libheif's own size caps) counts as too large; everything else is corrupt.
  static func decodingError(
    _ error: heif_error, source: String, while step: String
  ) -> ImageDecodingError {
    let kind: ImageDecodingError.Kind
    switch error.code {
    case heif_error_Invalid_input:
      kind = error.subcode == heif_suberror_End_of_data ? .truncated : .corrupt
    case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
      kind = .unsupportedVariant
    case heif_error_Memory_allocation_error:
      kind = error.subcode == heif_suberror_Security_limit_exceeded ? .tooLarge : .corrupt
    default:
      kind = .corrupt
    }
    return ImageDecodingError(
      kind, source: source, detail: "libheif, \(step): \(message(of: error)).")
  }

  /// Whether `error` is success.
  static func succeeded(_ error: heif_error) -> Bool { error.code == heif_error_Ok }
}
