//! The 64-bit SimHash signature and its two comparisons.

use core::fmt;

use crate::{Error, Result};

/// A 64-bit SimHash: bit `b` (value `1 << b`) is set when the weighted vote
/// of the document's tokens on bit `b` of their hashes is positive.
///
/// `repr(transparent)` over `u64` and [`bytemuck::Pod`], so a `&[SimHash64]`
/// can be viewed as `&[u64]` or as bytes without copying. With the `serde`
/// feature it serializes as a bare integer.
///
/// ```
/// use txtfp::SimHash64;
/// let s = SimHash64::new(0xdead);
/// assert_eq!(s.bits(), 0xdead);
/// assert_eq!(s.to_string(), "SimHash64(000000000000dead)");
/// assert_eq!(SimHash64::from_bytes(&s.to_le_bytes())?, s);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct SimHash64(pub u64);

impl SimHash64 {
    /// Wraps raw signature bits.
    #[inline]
    pub const fn new(bits: u64) -> Self {
        Self(bits)
    }

    /// The raw signature bits.
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The in-memory bytes of the signature: 8 bytes in the host's byte order,
    /// i.e. little-endian on every little-endian host (as txtfp 0.3.2).
    /// For bytes that are identical on every host use [`SimHash64::to_le_bytes`].
    ///
    /// ```
    /// # use txtfp::SimHash64;
    /// let s = SimHash64::new(0x0102_0304_0506_0708);
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(s.as_bytes(), &[8, 7, 6, 5, 4, 3, 2, 1]);
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::bytes_of(self)
    }

    /// The signature as 8 little-endian bytes, on every host.
    #[inline]
    pub const fn to_le_bytes(self) -> [u8; 8] {
        self.0.to_le_bytes()
    }

    /// Reads a signature from exactly 8 little-endian bytes (the inverse of
    /// [`SimHash64::to_le_bytes`], and of [`SimHash64::as_bytes`] on
    /// little-endian hosts). The slice may have any alignment.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] `"SimHash64 is 8 bytes, got {n}"` when the
    /// slice is not 8 bytes long.
    ///
    /// ```
    /// # use txtfp::SimHash64;
    /// assert_eq!(SimHash64::from_bytes(&[5, 0, 0, 0, 0, 0, 0, 0])?, SimHash64(5));
    /// let err = SimHash64::from_bytes(&[0; 7]).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid input: SimHash64 is 8 bytes, got 7");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let arr: [u8; 8] = bytes.try_into().map_err(|_| {
            Error::InvalidInput(alloc::format!("SimHash64 is 8 bytes, got {}", bytes.len()))
        })?;
        Ok(Self(u64::from_le_bytes(arr)))
    }
}

impl From<u64> for SimHash64 {
    #[inline]
    fn from(bits: u64) -> Self {
        Self(bits)
    }
}

impl From<SimHash64> for u64 {
    #[inline]
    fn from(s: SimHash64) -> Self {
        s.0
    }
}

impl fmt::Display for SimHash64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SimHash64({:016x})", self.0)
    }
}

/// Number of differing bits between two signatures, `0..=64`.
///
/// ```
/// use txtfp::{SimHash64, hamming};
/// assert_eq!(hamming(SimHash64(0b1011), SimHash64(0b0110)), 3);
/// ```
#[inline]
pub fn hamming(a: SimHash64, b: SimHash64) -> u32 {
    (a.0 ^ b.0).count_ones()
}

/// Charikar's cosine estimate `cos(π · d / 64)` for Hamming distance `d`,
/// with the exact `f32` values of txtfp 0.3.2 (`1.0` for equal signatures,
/// `-1.0` for complementary ones).
///
/// ```
/// use txtfp::{SimHash64, cosine_estimate};
/// assert_eq!(cosine_estimate(SimHash64(0), SimHash64(0xffff)), 0.70710677);
/// assert_eq!(cosine_estimate(SimHash64(0), SimHash64(u64::MAX)), -1.0);
/// ```
#[inline]
pub fn cosine_estimate(a: SimHash64, b: SimHash64) -> f32 {
    // Only 65 distances exist, so a table replaces the call to `f32::cos`:
    // it needs no libm (the crate is no_std), costs one load, and gives the
    // same bits on every platform. The entries are what
    // `((d as f32 / 64.0) * core::f32::consts::PI).cos()` returns on x86_64
    // Linux, the platform the 0.3.2 vectors were taken on; a std test checks
    // them against `f32::cos`.
    COSINE_BY_DISTANCE[hamming(a, b) as usize]
}

#[rustfmt::skip]
const COSINE_BY_DISTANCE: [f32; 65] = [
    1.0, 0.99879545, 0.9951847, 0.9891765, 0.98078525, 0.97003126, 0.95694035, 0.94154406,
    0.9238795, 0.9039893, 0.88192123, 0.8577286, 0.8314696, 0.8032075, 0.77301043, 0.7409511,
    0.70710677, 0.6715589, 0.6343933, 0.5956993, 0.5555702, 0.5141027, 0.47139665, 0.4275551,
    0.38268343, 0.33688983, 0.29028463, 0.24298012, 0.19509023, 0.1467305, 0.098017134,
    0.04906765,
    -4.371139e-8,
    -0.04906774, -0.09801722, -0.14673057, -0.19509032, -0.2429802, -0.29028472, -0.33688992,
    -0.38268352, -0.42755508, -0.47139683, -0.51410276, -0.55557036, -0.59569937, -0.6343933,
    -0.67155904, -0.70710677, -0.74095124, -0.7730105, -0.80320764, -0.83146966, -0.8577286,
    -0.88192135, -0.9039893, -0.9238796, -0.9415441, -0.95694035, -0.97003126, -0.9807853,
    -0.9891765, -0.9951847, -0.99879545, -1.0,
];

#[cfg(test)]
mod tests;
