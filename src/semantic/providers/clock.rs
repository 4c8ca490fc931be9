//! The time source of the retry loop, replaceable so tests (and simulations)
//! can run a 90-second retry budget in milliseconds.

use std::fmt;
use std::time::{Duration, Instant};

/// Where the retry loop reads the time and how it waits between attempts.
///
/// The providers use [`SystemClock`] unless given another one with
/// `with_clock`. A replacement must keep `now` monotonic; the budget checks
/// compare `now()` before and after each attempt and wait. The per-attempt
/// network timeout is always real time (the socket does not know the clock).
///
/// ```
/// # #[cfg(any(feature = "openai", feature = "voyage", feature = "cohere"))] {
/// use std::sync::Mutex;
/// use std::time::{Duration, Instant};
/// use txtfp::semantic::providers::Clock;
///
/// /// Records the waits and skips them: time jumps forward instead.
/// #[derive(Debug, Default)]
/// struct Skipping { slept: Mutex<Vec<Duration>> }
/// impl Clock for Skipping {
///     fn now(&self) -> Instant {
///         Instant::now() + self.slept.lock().unwrap().iter().sum::<Duration>()
///     }
///     fn sleep(&self, d: Duration) { self.slept.lock().unwrap().push(d) }
/// }
/// let c = Skipping::default();
/// let t0 = c.now();
/// c.sleep(Duration::from_secs(60));
/// assert!(c.now() - t0 >= Duration::from_secs(60));
/// # }
/// ```
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current time (monotonic).
    fn now(&self) -> Instant;
    /// Blocks the calling thread for `d`.
    fn sleep(&self, d: Duration);
}

/// The real clock: [`Instant::now`] and [`std::thread::sleep`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}
