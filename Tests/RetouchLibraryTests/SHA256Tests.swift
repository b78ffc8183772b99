// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import RetouchLibrary

@Suite struct SHA256Tests {
  // FIPS 180-4 / NIST CSRC example vectors.
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ])
  func knownVectors(message: String, digest: String) {
    #expect(SHA256.hexDigest(Data(message.utf8)) == digest)
  }

  @Test func millionAs() {
    #expect(
      SHA256.hexDigest(Data(repeating: 0x61, count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  /// Feeding the message in pieces of every awkward size gives the one-shot digest.
  @Test func incrementalMatchesOneShot() {
    let message = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    let expected = SHA256.hexDigest(message)
    for piece in [1, 3, 55, 56, 63, 64, 65, 127, 999] {
      var h = SHA256()
      var offset = 0
      while offset < message.count {
        let end = min(offset + piece, message.count)
        h.update(message[offset..<end])
        offset = end
      }
      #expect(h.finalizeHex() == expected, "piece size \(piece)")
    }
  }
}
