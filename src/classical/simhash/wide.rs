//! SimHash signatures of 16, 32 and 128 bits, and the [`SimHashBits`] trait
//! that lets code handle every width (64 included) alike.
//!
//! A `w`-bit SimHash gives each token a `w`-bit hash and sets bit `b` when
//! the token votes on bit `b` sum to more than zero. The votes on one bit
//! never affect another, so the 16- and 32-bit signatures of a
//! configuration are exactly the low bits of its [`SimHash64`], and the low
//! half of its [`SimHash128`] *is* its `SimHash64`; the high half votes on
//! the high 64 bits of the same 128-bit token hash.

use core::fmt;

use super::SimHash64;
use crate::{Error, Result};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::SimHash16 {}
    impl Sealed for super::SimHash32 {}
    impl Sealed for super::SimHash64 {}
    impl Sealed for super::SimHash128 {}
}

/// What every SimHash width has in common: its bit count, its value as a
/// `u128`, and the three comparisons.
///
/// Implemented by [`SimHash16`], [`SimHash32`], [`SimHash64`] and
/// [`SimHash128`] (sealed: no other type).
///
/// ```
/// use txtfp::SimHash128;
/// use txtfp::classical::simhash::{SimHash32, SimHashBits};
/// let (a, b) = (SimHash32(0b1011), SimHash32(0b0110));
/// assert_eq!(a.hamming(b), 3);
/// assert_eq!(a.similarity(b), 1.0 - 3.0 / 32.0);
/// assert_eq!(SimHash128(0).cosine_estimate(SimHash128(u128::MAX)), -1.0);
/// assert_eq!(SimHash128::BITS, 128);
/// ```
pub trait SimHashBits:
    Copy + Eq + core::hash::Hash + fmt::Debug + Send + Sync + 'static + sealed::Sealed
{
    /// The width in bits: 16, 32, 64 or 128.
    const BITS: u32;

    /// The signature of the low [`Self::BITS`] bits of `lo` followed by
    /// `hi` (only 128-bit signatures read `hi`).
    fn from_halves(lo: u64, hi: u64) -> Self;

    /// The signature bits, zero-extended.
    fn to_u128(self) -> u128;

    /// Number of differing bits, `0..=BITS`.
    #[inline]
    fn hamming(self, other: Self) -> u32 {
        (self.to_u128() ^ other.to_u128()).count_ones()
    }

    /// `1 − hamming / BITS`: 1 for equal signatures, 0 for complementary ones.
    #[inline]
    fn similarity(self, other: Self) -> f64 {
        1.0 - f64::from(self.hamming(other)) / f64::from(Self::BITS)
    }

    /// Charikar's cosine estimate `cos(π · d / BITS)` in `f32`, from a table
    /// (no libm): the same values as [`cosine_estimate`](super::cosine_estimate)
    /// at the same fraction of differing bits.
    #[inline]
    fn cosine_estimate(self, other: Self) -> f32 {
        // d / BITS = (d · 128 / BITS) / 128 exactly, and the table holds the
        // f32 cosines of every multiple of π/128.
        COSINE_128[(self.hamming(other) * (128 / Self::BITS)) as usize]
    }
}

impl SimHashBits for SimHash64 {
    const BITS: u32 = 64;
    #[inline]
    fn from_halves(lo: u64, _hi: u64) -> Self {
        SimHash64(lo)
    }
    #[inline]
    fn to_u128(self) -> u128 {
        u128::from(self.0)
    }
}

/// Defines a SimHash newtype over an unsigned integer.
macro_rules! simhash_width {
    ($(#[$doc:meta])* $name:ident, $int:ty, $bits:literal, $hex:literal) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(
            Clone, Copy, PartialEq, Eq, Hash, Debug, Default, bytemuck::Pod, bytemuck::Zeroable,
        )]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(transparent))]
        pub struct $name(pub $int);

        impl $name {
            /// Wraps raw signature bits.
            #[inline]
            pub const fn new(bits: $int) -> Self {
                Self(bits)
            }

            /// The raw signature bits.
            #[inline]
            pub const fn bits(self) -> $int {
                self.0
            }

            /// The signature as little-endian bytes, on every host (the
            /// byte order of [`SimHash64::to_le_bytes`]).
            #[inline]
            pub const fn to_le_bytes(self) -> [u8; $bits / 8] {
                self.0.to_le_bytes()
            }

            /// Reads a signature from exactly `BITS / 8` little-endian
            /// bytes, at any alignment.
            ///
            /// # Errors
            /// [`Error::InvalidInput`] naming the expected and the actual
            /// length when the slice has the wrong length.
            pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
                let arr: [u8; $bits / 8] = bytes.try_into().map_err(|_| {
                    Error::InvalidInput(alloc::format!(
                        concat!(stringify!($name), " is {} bytes, got {}"),
                        $bits / 8,
                        bytes.len()
                    ))
                })?;
                Ok(Self(<$int>::from_le_bytes(arr)))
            }
        }

        impl SimHashBits for $name {
            const BITS: u32 = $bits;
            #[inline]
            fn from_halves(lo: u64, hi: u64) -> Self {
                Self((u128::from(lo) | (u128::from(hi) << 64)) as $int)
            }
            #[inline]
            fn to_u128(self) -> u128 {
                u128::from(self.0)
            }
        }

        impl From<$int> for $name {
            #[inline]
            fn from(bits: $int) -> Self {
                Self(bits)
            }
        }

        impl From<$name> for $int {
            #[inline]
            fn from(s: $name) -> Self {
                s.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:0", $hex, "x})"), self.0)
            }
        }
    };
}

simhash_width!(
    /// A 16-bit SimHash: the low 16 bits of the [`SimHash64`] of the same
    /// configuration. Meant for coarse screening of small sets; see
    /// [`SimHashBits`] for the comparisons.
    ///
    /// ```
    /// use txtfp::classical::simhash::{SimHash16, SimHashBits};
    /// let s = SimHash16::new(0xbeef);
    /// assert_eq!(s.to_string(), "SimHash16(beef)");
    /// assert_eq!(SimHash16::from_bytes(&s.to_le_bytes())?, s);
    /// assert_eq!(s.hamming(SimHash16(0xbeee)), 1);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    SimHash16, u16, 16, "4"
);

simhash_width!(
    /// A 32-bit SimHash: the low 32 bits of the [`SimHash64`] of the same
    /// configuration.
    ///
    /// ```
    /// use txtfp::SimHash64;
    /// use txtfp::classical::simhash::{SimHash32, SimHashBits};
    /// let s = SimHash32::new(0xdead_beef);
    /// assert_eq!(s.to_string(), "SimHash32(deadbeef)");
    /// // Zero-extended into a SimHash64 it keeps every distance.
    /// assert_eq!(SimHash64::from(s).bits(), 0xdead_beef);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    SimHash32, u32, 32, "8"
);

simhash_width!(
    /// A 128-bit SimHash: bits 0–63 are the [`SimHash64`] of the same
    /// configuration ([`Self::low64`]); bits 64–127 are voted on by the
    /// high half of the same 128-bit token hashes ([`Self::high64`]).
    ///
    /// Twice the bits halve the variance of the cosine estimate. Index it
    /// with `SimHash128Index` (feature `lsh`).
    ///
    /// ```
    /// use txtfp::SimHash128;
    /// use txtfp::classical::simhash::SimHashBits;
    /// let s = SimHash128::from_halves(0x1111, 0x2222);
    /// assert_eq!(s.bits(), 0x2222_u128 << 64 | 0x1111);
    /// assert_eq!((s.low64().bits(), s.high64().bits()), (0x1111, 0x2222));
    /// assert_eq!(s.to_string(), "SimHash128(00000000000022220000000000001111)");
    /// ```
    SimHash128, u128, 128, "32"
);

impl SimHash128 {
    /// Bits 0–63, the [`SimHash64`] of the same configuration.
    #[inline]
    pub const fn low64(self) -> SimHash64 {
        SimHash64(self.0 as u64)
    }

    /// Bits 64–127.
    #[inline]
    pub const fn high64(self) -> SimHash64 {
        SimHash64((self.0 >> 64) as u64)
    }
}

impl From<SimHash16> for SimHash64 {
    /// Zero-extends: distances between widened signatures are unchanged.
    #[inline]
    fn from(s: SimHash16) -> Self {
        SimHash64(u64::from(s.0))
    }
}

impl From<SimHash32> for SimHash64 {
    /// Zero-extends: distances between widened signatures are unchanged.
    #[inline]
    fn from(s: SimHash32) -> Self {
        SimHash64(u64::from(s.0))
    }
}

/// `cos(π · d / 128)` in `f32` for `d` in `0..=128`: what
/// `((d as f32 / 128.0) * core::f32::consts::PI).cos()` returns on x86_64
/// Linux (a std test checks every entry). The even entries are
/// [`cosine_estimate`](super::cosine_estimate)'s 64-bit table.
#[rustfmt::skip]
const COSINE_128: [f32; 129] = [
    1.0, 0.9996988, 0.99879545, 0.99729043, 0.9951847, 0.99247956, 0.9891765, 0.98527765,
    0.98078525, 0.9757021, 0.97003126, 0.96377605, 0.95694035, 0.94952816, 0.94154406, 0.9329928,
    0.9238795, 0.9142097, 0.9039893, 0.8932243, 0.88192123, 0.87008697, 0.8577286, 0.8448536,
    0.8314696, 0.8175848, 0.8032075, 0.7883464, 0.77301043, 0.7572088, 0.7409511, 0.7242471,
    0.70710677, 0.6895405, 0.6715589, 0.6531728, 0.6343933, 0.6152316, 0.5956993, 0.57580817,
    0.5555702, 0.53499764, 0.5141027, 0.49289817, 0.47139665, 0.4496113, 0.4275551, 0.40524128,
    0.38268343, 0.35989496, 0.33688983, 0.31368166, 0.29028463, 0.26671275, 0.24298012,
    0.21910124, 0.19509023, 0.17096186, 0.1467305, 0.122410625, 0.098017134, 0.07356449,
    0.04906765, 0.024541136,
    -4.371139e-8,
    -0.024541223, -0.04906774, -0.073564574, -0.09801722, -0.12241071, -0.14673057, -0.17096195,
    -0.19509032, -0.21910131, -0.2429802, -0.26671284, -0.29028472, -0.31368172, -0.33688992,
    -0.35989505, -0.38268352, -0.40524134, -0.42755508, -0.44961137, -0.47139683, -0.49289817,
    -0.51410276, -0.5349977, -0.55557036, -0.57580817, -0.59569937, -0.6152317, -0.6343933,
    -0.65317285, -0.67155904, -0.6895407, -0.70710677, -0.72424716, -0.74095124, -0.7572088,
    -0.7730105, -0.78834647, -0.80320764, -0.8175848, -0.83146966, -0.84485364, -0.8577286,
    -0.870087, -0.88192135, -0.8932243, -0.9039893, -0.9142098, -0.9238796, -0.9329928,
    -0.9415441, -0.9495282, -0.95694035, -0.96377605, -0.97003126, -0.97570217, -0.9807853,
    -0.98527765, -0.9891765, -0.9924795, -0.9951847, -0.9972905, -0.99879545, -0.9996988, -1.0,
];

#[cfg(test)]
mod tests;
