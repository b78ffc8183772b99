// SPDX-License-Identifier: Apache-2.0

/// The front end's files (Sources/RetouchWeb/Assets), compiled into the binary.
///
/// Embedded with SwiftPM's `embedInCode` rather than served from a resource bundle because
/// (1) the binary is then the whole editor: it can be copied anywhere and still serve its pages,
/// whereas `Bundle.module` on Linux looks for a `.resources` folder beside the executable and
/// traps when it is missing; (2) the table below is the complete list of files the server can
/// ever send — no file-system path is built from a request, so there is nothing to traverse.
/// Cost: about 100 KB of constant data in the binary.
enum WebAssets {
  struct Asset: Sendable {
    let bytes: [UInt8]
    let contentType: String
  }

  /// Request path → file. Pages have short paths; everything else lives under `/assets/`.
  static let table: [String: Asset] = {
    let html = "text/html; charset=utf-8", js = "text/javascript; charset=utf-8"
    return [
      "/": Asset(bytes: PackageResources.index_html, contentType: html),
      "/editor": Asset(bytes: PackageResources.editor_html, contentType: html),
      "/assets/style.css": Asset(
        bytes: PackageResources.style_css, contentType: "text/css; charset=utf-8"),
      "/assets/favicon.svg": Asset(
        bytes: PackageResources.favicon_svg, contentType: "image/svg+xml"),
      "/assets/api.js": Asset(bytes: PackageResources.api_js, contentType: js),
      "/assets/i18n.js": Asset(bytes: PackageResources.i18n_js, contentType: js),
      "/assets/icons.js": Asset(bytes: PackageResources.icons_js, contentType: js),
      "/assets/library.js": Asset(bytes: PackageResources.library_js, contentType: js),
      "/assets/editor.js": Asset(bytes: PackageResources.editor_js, contentType: js),
      "/assets/crop.js": Asset(bytes: PackageResources.crop_js, contentType: js),
      "/assets/preview.js": Asset(bytes: PackageResources.preview_js, contentType: js),
    ]
  }()
}
