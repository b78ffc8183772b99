// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender

/// The identifier of a photo in one library (its database row id); stable for the asset's life.
public struct AssetID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
  public let rawValue: Int64
  public init(_ rawValue: Int64) { self.rawValue = rawValue }
  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  public var description: String { String(rawValue) }
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(Int64.self)
  }
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}

/// One photo in the library: its never-modified original, what its metadata said at import, and
/// where its edit stands.
public struct Asset: Sendable, Hashable, Identifiable, Codable {
  public let id: AssetID
  /// SHA-256 of the original file's bytes, 64 lowercase hex digits: the original's name on disk.
  public let originalHash: String
  /// The file name it was imported from.
  public let originalFilename: String
  public let format: ImageFormat
  /// Bytes of the original file.
  public let fileSize: Int
  /// Stored pixel size (before orientation), when the header gave it.
  public let pixelSize: PixelSize?
  public let orientation: ImageOrientation
  /// When the photo was taken (EXIF, with its offset when given), nil when the file does not say.
  public let captureDate: Date?
  public let cameraMake: String?
  public let cameraModel: String?
  public let location: GPSLocation?
  public let importDate: Date
  /// When it was moved to Recently Deleted; nil for a live asset.
  public let deletedDate: Date?
  /// The revision whose render is the photo's current look; nil when it shows its original
  /// (never edited, or reverted).
  public let currentRevisionID: Int64?

  /// Whether the photo currently shows an edit.
  public var isEdited: Bool { currentRevisionID != nil }
  /// Whether the photo is in Recently Deleted.
  public var isDeleted: Bool { deletedDate != nil }
  /// The camera as people say it: the model, prefixed by the make unless the model already
  /// starts with it ("Canon EOS 400D DIGITAL", "Apple iPhone 13 Pro").
  public var camera: String? {
    switch (cameraMake, cameraModel) {
    case (nil, nil): return nil
    case (let make?, nil): return make
    case (nil, let model?): return model
    case (let make?, let model?):
      return model.lowercased().hasPrefix(make.lowercased()) ? model : "\(make) \(model)"
    }
  }
  /// Display size: the stored size turned by the orientation.
  public var displaySize: PixelSize? {
    guard let s = pixelSize else { return nil }
    return orientation.rawValue >= 5 ? PixelSize(width: s.height, height: s.width) : s
  }
}

/// One committed change of an asset's look, kept forever: an edit (render + adjustment data) or
/// a revert to the original.
public struct AssetRevision: Sendable, Hashable, Identifiable {
  public enum Kind: String, Sendable, Hashable, Codable {
    /// A new render with the adjustment data that made it.
    case edit
    /// Back to the original (the edits before it stay in the history).
    case revertToOriginal = "revert"
  }

  public let id: Int64
  public let assetID: AssetID
  public let date: Date
  public let kind: Kind
  /// The editor's adjustment data (edits only).
  public let adjustmentData: AdjustmentData?
  /// The render's file name inside the library's `Renders` folder (edits only).
  public let renderFilename: String?
  /// The Retouch edit, when the adjustment data is Retouch's own `EditConfig` (or the change
  /// request said which edit it was).
  public let editConfig: EditConfig?
}

/// One past edit as an editor app's grid shows it: which photo, which preset look, the slider
/// values, and when. Built from the revisions that carry a Retouch `EditConfig`.
public struct EditSession: Sendable, Hashable, Identifiable {
  /// The revision id.
  public let id: Int64
  public let assetID: AssetID
  public let date: Date
  /// The whole edit (look, sliders, crop, turns).
  public let config: EditConfig
  /// The preset look, if any.
  public var look: LookSelection? { config.look }
  /// The slider values (offsets from neutral; absent = 0).
  public var sliderValues: [EditSettingType: Double] { config.properties }
}

/// What to list and in which order.
public struct AssetQuery: Sendable, Hashable {
  public enum Sort: String, Sendable, Hashable, CaseIterable {
    /// When the photo was taken; photos that do not say sort by their import date.
    case captureDate
    /// When the photo came into the library.
    case importDate
  }
  /// Which photos by edit state.
  public enum EditFilter: String, Sendable, Hashable {
    case any, edited, unedited
  }
  /// Live photos, Recently Deleted, or both.
  public enum Deletion: String, Sendable, Hashable {
    case live, deleted, all
  }

  public var sort: Sort = .captureDate
  /// Newest first when false (the grid's default).
  public var ascending = false
  public var edits: EditFilter = .any
  /// Case-insensitive substring of make or model ("canon", "iPhone 13").
  public var camera: String? = nil
  /// Capture dates in this range (photos without a capture date are left out when set).
  public var captureDates: ClosedRange<Date>? = nil
  public var deletion: Deletion = .live
  /// At most this many (nil: all).
  public var limit: Int? = nil
  public var offset = 0

  public init(
    sort: Sort = .captureDate, ascending: Bool = false, edits: EditFilter = .any,
    camera: String? = nil,
    captureDates: ClosedRange<Date>? = nil, deletion: Deletion = .live, limit: Int? = nil,
    offset: Int = 0
  ) {
    self.sort = sort
    self.ascending = ascending
    self.edits = edits
    self.camera = camera
    self.captureDates = captureDates
    self.deletion = deletion
    self.limit = limit
    self.offset = offset
  }
}
