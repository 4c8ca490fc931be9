//! The Redis Cluster client of the cluster store: which master serves
//! which slot, one small connection pool per master, and rounds of
//! commands sent to every master at once (one pipeline each, on threads
//! of their own, so the masters work in parallel).
//!
//! Every command the store sends is safe to repeat (see `functions.lua`),
//! so a round that fails (a master restarting, a slot that moved, the
//! cluster briefly down) refreshes the slot map and is sent again, for up
//! to [`Net::patience`].

use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use redis::{Cmd, Connection, Value};

use crate::{Error, Result};

/// Slots of a Redis Cluster.
pub(super) const SLOTS: usize = 16_384;

/// Connect / read / write timeout of one connection.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Slot of a key: CRC-16/XMODEM of its hash tag (the part between the
/// first `{` and the next `}` when not empty, else the whole key).
pub(super) fn slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&c| c == b'{').and_then(|open| {
        let rest = &key[open + 1..];
        let close = rest.iter().position(|&c| c == b'}')?;
        (close > 0).then(|| &rest[..close])
    });
    (crc16(tagged.unwrap_or(key)) as usize % SLOTS) as u16
}

fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// One master: its address and idle connections.
struct Node {
    addr: String,
    client: redis::Client,
    pool: Mutex<Vec<Connection>>,
}

impl Node {
    fn new(addr: &str) -> Result<Self> {
        let url = format!("redis://{addr}/");
        Ok(Self {
            addr: addr.to_owned(),
            client: redis::Client::open(url.as_str()).map_err(|e| net_err(addr, e))?,
            pool: Mutex::new(Vec::new()),
        })
    }

    fn connection(&self) -> Result<Connection> {
        if let Some(c) = self.pool.lock().ok().and_then(|mut p| p.pop()) {
            return Ok(c);
        }
        let con = self
            .client
            .get_connection_with_timeout(TIMEOUT)
            .map_err(|e| net_err(&self.addr, e))?;
        con.set_read_timeout(Some(TIMEOUT))
            .map_err(|e| net_err(&self.addr, e))?;
        con.set_write_timeout(Some(TIMEOUT))
            .map_err(|e| net_err(&self.addr, e))?;
        Ok(con)
    }

    fn give_back(&self, con: Connection) {
        if let Ok(mut p) = self.pool.lock()
            && p.len() < 8
        {
            p.push(con);
        }
    }

    /// Sends `cmds` in one pipeline; the replies in order, or the first
    /// error and whether it may pass (a connection that failed is dropped).
    fn run(&self, cmds: &[&Cmd]) -> core::result::Result<Vec<Value>, (bool, Error)> {
        use redis::ConnectionLike;
        let mut con = self.connection().map_err(|e| (true, e))?;
        let mut packed = Vec::new();
        for c in cmds {
            c.write_packed_command(&mut packed);
        }
        let out = match con.req_packed_commands(&packed, 0, cmds.len()) {
            Ok(v) => v,
            Err(e) => return Err((passing(&e), net_err(&self.addr, e))),
        };
        for v in &out {
            if let Value::ServerError(e) = v {
                let e: redis::RedisError = e.clone().into();
                // The connection is still in step: keep it.
                self.give_back(con);
                return Err((passing(&e), net_err(&self.addr, e)));
            }
        }
        self.give_back(con);
        Ok(out)
    }
}

/// Whether an error may pass by itself: the network, a master loading or
/// restarting, a slot moving, the cluster reconfiguring. A script error or
/// a wrong reply never does.
fn passing(e: &redis::RedisError) -> bool {
    if e.is_cluster_error()
        || e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
    {
        return true;
    }
    let text = e.to_string();
    // A pipeline reports its replies' errors inside one error.
    [
        "MOVED",
        "ASK",
        "TRYAGAIN",
        "CLUSTERDOWN",
        "BusyLoading",
        "LOADING",
        "MASTERDOWN",
    ]
    .iter()
    .any(|w| text.contains(w))
}

fn net_err(addr: &str, e: impl core::fmt::Display) -> Error {
    Error::Store(format!("redis cluster node {addr}: {e}"))
}

/// The masters and the slot map.
struct Topology {
    nodes: Vec<Node>,
    /// Index into `nodes` of each slot's master (`usize::MAX`: unserved).
    owner: Vec<usize>,
}

/// A connection to a Redis Cluster.
pub(super) struct Net {
    seeds: Vec<String>,
    topo: RwLock<Topology>,
    /// How long a failing round is retried before the error is returned.
    pub(super) patience: Duration,
}

impl Net {
    /// Connects through `seeds` (`redis://host:port/` URLs of any nodes)
    /// and reads the slot map.
    pub(super) fn connect(seeds: &[String], patience: Duration) -> Result<Self> {
        if seeds.is_empty() {
            return Err(Error::Store("redis cluster: no node URL given".into()));
        }
        let mut addrs = Vec::new();
        for s in seeds {
            let rest = s.strip_prefix("redis://").ok_or_else(|| {
                Error::Store(format!("redis cluster: {s:?} is not redis://host:port/"))
            })?;
            let addr = rest.split('/').next().unwrap_or_default();
            if addr.is_empty() || addr.contains('@') {
                return Err(Error::Store(format!(
                    "redis cluster: {s:?} is not redis://host:port/"
                )));
            }
            addrs.push(addr.to_owned());
        }
        let net = Self {
            seeds: addrs,
            topo: RwLock::new(Topology {
                nodes: Vec::new(),
                owner: vec![usize::MAX; SLOTS],
            }),
            patience,
        };
        net.refresh()?;
        Ok(net)
    }

    /// Reads the slot map from the first seed (or known node) that answers.
    fn refresh(&self) -> Result<()> {
        let known: Vec<String> = self
            .topo
            .read()
            .map(|t| t.nodes.iter().map(|n| n.addr.clone()).collect())
            .unwrap_or_default();
        let mut last = None;
        for addr in self.seeds.iter().chain(known.iter()) {
            match Self::slots_from(addr) {
                Ok(ranges) => return self.install(ranges),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::Store("redis cluster: no node answered".into())))
    }

    /// `CLUSTER SLOTS` of `addr`: (first, last, master address).
    fn slots_from(addr: &str) -> Result<Vec<(usize, usize, String)>> {
        let node = Node::new(addr)?;
        let mut con = node.connection()?;
        let v: Value = redis::cmd("CLUSTER")
            .arg("SLOTS")
            .query(&mut con)
            .map_err(|e| net_err(addr, e))?;
        let bad = || net_err(addr, "unexpected CLUSTER SLOTS reply");
        let Value::Array(ranges) = v else {
            return Err(bad());
        };
        let mut out = Vec::new();
        for r in ranges {
            let Value::Array(items) = r else {
                return Err(bad());
            };
            let (Some(Value::Int(first)), Some(Value::Int(last)), Some(Value::Array(master))) =
                (items.first(), items.get(1), items.get(2))
            else {
                return Err(bad());
            };
            let host = match master.first() {
                Some(Value::BulkString(h)) => String::from_utf8_lossy(h).into_owned(),
                Some(Value::SimpleString(h)) => h.clone(),
                _ => return Err(bad()),
            };
            let Some(Value::Int(port)) = master.get(1) else {
                return Err(bad());
            };
            let host = if host.is_empty() {
                addr.rsplit_once(':')
                    .map_or("127.0.0.1", |h| h.0)
                    .to_owned()
            } else {
                host
            };
            let (first, last) = (usize::try_from(*first), usize::try_from(*last));
            let (Ok(first), Ok(last)) = (first, last) else {
                return Err(bad());
            };
            if first > last || last >= SLOTS {
                return Err(bad());
            }
            out.push((first, last, format!("{host}:{port}")));
        }
        Ok(out)
    }

    fn install(&self, ranges: Vec<(usize, usize, String)>) -> Result<()> {
        let mut topo = self
            .topo
            .write()
            .map_err(|_| Error::Store("redis cluster: slot map poisoned".into()))?;
        let mut owner = vec![usize::MAX; SLOTS];
        for (first, last, addr) in ranges {
            let i = match topo.nodes.iter().position(|n| n.addr == addr) {
                Some(i) => i,
                None => {
                    topo.nodes.push(Node::new(&addr)?);
                    topo.nodes.len() - 1
                }
            };
            owner[first..=last].fill(i);
        }
        topo.owner = owner;
        Ok(())
    }

    /// How many masters serve slots.
    pub(super) fn masters(&self) -> usize {
        self.topo.read().map_or(0, |t| {
            let mut seen: Vec<usize> = t
                .owner
                .iter()
                .copied()
                .filter(|&o| o != usize::MAX)
                .collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len()
        })
    }

    /// Runs `cmd` on every master (e.g. `FUNCTION LOAD`).
    pub(super) fn on_every_master(&self, cmd: &Cmd) -> Result<()> {
        let targets: Vec<u16> = {
            let t = self
                .topo
                .read()
                .map_err(|_| Error::Store("redis cluster: slot map poisoned".into()))?;
            let mut first_slot: Vec<(usize, u16)> = Vec::new();
            for (s, &o) in t.owner.iter().enumerate() {
                if o != usize::MAX && !first_slot.iter().any(|f| f.0 == o) {
                    first_slot.push((o, s as u16));
                }
            }
            first_slot.into_iter().map(|f| f.1).collect()
        };
        let cmds: Vec<(u16, Cmd)> = targets.into_iter().map(|s| (s, cmd.clone())).collect();
        self.round(&cmds).map(|_| ())
    }

    /// Sends every `(slot, command)` to the master of its slot (one
    /// pipeline per master, all masters at once) and returns the replies in
    /// order. Retried as a whole while it fails, for up to `patience`.
    pub(super) fn round(&self, cmds: &[(u16, Cmd)]) -> Result<Vec<Value>> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(20);
        loop {
            match self.try_round(cmds) {
                Ok(v) => return Ok(v),
                Err((passing, e)) if !passing || start.elapsed() >= self.patience => return Err(e),
                Err(_) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(500));
                    // A master that restarted, or a slot that moved: ask again.
                    let _ = self.refresh();
                }
            }
        }
    }

    /// One attempt at [`round`](Self::round); an error says whether it may
    /// pass.
    fn try_round(&self, cmds: &[(u16, Cmd)]) -> core::result::Result<Vec<Value>, (bool, Error)> {
        let topo = self.topo.read().map_err(|_| {
            (
                false,
                Error::Store("redis cluster: slot map poisoned".into()),
            )
        })?;
        let mut per_node: Vec<Vec<usize>> = vec![Vec::new(); topo.nodes.len()];
        for (i, (s, _)) in cmds.iter().enumerate() {
            let o = topo.owner[*s as usize % SLOTS];
            let list = per_node.get_mut(o).ok_or_else(|| {
                (
                    true,
                    Error::Store(format!("redis cluster: slot {s} has no master")),
                )
            })?;
            list.push(i);
        }
        let busy: Vec<(usize, &Vec<usize>)> = per_node
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
            .collect();
        type Answer = core::result::Result<Vec<Value>, (bool, Error)>;
        let run = |node: usize, idx: &Vec<usize>| -> Answer {
            let batch: Vec<&Cmd> = idx.iter().map(|&i| &cmds[i].1).collect();
            let out = topo.nodes[node].run(&batch)?;
            if out.len() != idx.len() {
                return Err((
                    false,
                    net_err(&topo.nodes[node].addr, "short pipeline reply"),
                ));
            }
            Ok(out)
        };
        let answers: Vec<Answer> = if busy.len() == 1 {
            vec![run(busy[0].0, busy[0].1)]
        } else {
            std::thread::scope(|s| {
                let hs: Vec<_> = busy
                    .iter()
                    .map(|&(node, idx)| s.spawn(move || run(node, idx)))
                    .collect();
                hs.into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err((false, Error::Store("redis cluster: a sender failed".into())))
                        })
                    })
                    .collect()
            })
        };
        let mut out: Vec<Value> = vec![Value::Nil; cmds.len()];
        for ((_, idx), ans) in busy.iter().zip(answers) {
            for (&i, v) in idx.iter().zip(ans?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_follow_redis() {
        // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(slot(b"foo"), 12182);
        assert_eq!(slot(b"{user1000}.following"), slot(b"user1000"));
        assert_eq!(slot(b"foo{}{bar}"), 8363);
        assert_eq!(slot(b"foo{{bar}}zap"), 4015);
        assert_eq!(slot(b"foo{bar}{zap}"), 5061);
        assert_eq!(slot(b"{txtfp|17}"), 8389);
    }
}
