//! A scripted HTTP/1.1 server on 127.0.0.1 for the cloud provider tests, and
//! a clock that skips waits. Plain `std::net`; one thread per connection;
//! every answer closes its connection. Nothing leaves the machine.

#![cfg(any(feature = "openai", feature = "voyage", feature = "cohere"))]
#![allow(dead_code)] // each test file uses a different part

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use txtfp::semantic::providers::Clock;

/// Largest request body the mock reads (bounds a runaway client).
const MAX_BODY: usize = 64 << 20;
/// Most connections one server accepts before it stops by itself.
const MAX_CONNECTIONS: usize = 5000;

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Request {
    /// 0-based arrival number.
    pub n: usize,
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: HashMap<String, String>,
    pub body: Value,
    pub at: Instant,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// What the server does with a request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// Status, extra headers and a body (sent as `application/json`).
    Body(u16, Vec<(&'static str, String)>, String),
    /// Wait, then do the inner reply (writes to a closed socket are ignored).
    After(Duration, Box<Reply>),
    /// Close the connection without answering.
    Hangup,
}

impl Reply {
    pub fn json(status: u16, v: Value) -> Self {
        Reply::Body(status, Vec::new(), v.to_string())
    }

    pub fn raw(status: u16, body: &str) -> Self {
        Reply::Body(status, Vec::new(), body.to_string())
    }

    pub fn with_header(self, name: &'static str, value: &str) -> Self {
        match self {
            Reply::Body(s, mut h, b) => {
                h.push((name, value.to_string()));
                Reply::Body(s, h, b)
            }
            other => other,
        }
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// The server; stops accepting when dropped.
pub struct MockServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl MockServer {
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (reqs, stop2) = (requests.clone(), stop.clone());
        let count = Arc::new(AtomicUsize::new(0));
        thread::spawn(move || {
            for conn in listener.incoming().take(MAX_CONNECTIONS) {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = conn else { continue };
                let (h, r, c) = (handler.clone(), reqs.clone(), count.clone());
                thread::spawn(move || serve(stream, &*h, &r, &c));
            }
        });
        Self {
            addr,
            requests,
            stop,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        let mut v = self.requests.lock().unwrap().clone();
        v.sort_by_key(|r| r.n);
        v
    }

    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<Request>>, count: &AtomicUsize) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let Some(req) = read_request(&mut reader, count) else {
        return;
    };
    log.lock().unwrap().push(req.clone());
    let mut reply = handler(&req);
    loop {
        match reply {
            Reply::After(d, inner) => {
                thread::sleep(d);
                reply = *inner;
            }
            Reply::Hangup => return,
            Reply::Body(status, headers, body) => {
                let mut out = format!(
                    "HTTP/1.1 {status} Mock\r\ncontent-type: application/json\r\n\
                     content-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                let mut s = stream;
                let _ = s.write_all(out.as_bytes());
                let _ = s.write_all(body.as_bytes());
                let _ = s.flush();
                return;
            }
        }
    }
}

fn read_request(r: &mut BufReader<TcpStream>, count: &AtomicUsize) -> Option<Request> {
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    let body = if let Some(len) = headers.get("content-length") {
        let len: usize = len.parse().ok()?;
        if len > MAX_BODY {
            return None;
        }
        let mut b = vec![0; len];
        r.read_exact(&mut b).ok()?;
        b
    } else if headers
        .get("transfer-encoding")
        .is_some_and(|v| v.contains("chunked"))
    {
        read_chunked(r)?
    } else {
        Vec::new()
    };
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let n = count.fetch_add(1, Ordering::SeqCst);
    Some(Request {
        n,
        method,
        path,
        headers,
        body,
        at: Instant::now(),
    })
}

fn read_chunked(r: &mut BufReader<TcpStream>) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let mut size = String::new();
        r.read_line(&mut size).ok()?;
        let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
        if out.len() + n > MAX_BODY {
            return None;
        }
        let mut chunk = vec![0; n + 2];
        r.read_exact(&mut chunk).ok()?;
        out.extend_from_slice(&chunk[..n]);
        if n == 0 {
            return Some(out);
        }
    }
}

/// The fake vector the mock gives a text: a function of the text, so tests
/// can check which vector went to which input.
pub fn fake_vector(text: &str, dim: usize) -> Vec<f32> {
    let seed = text
        .bytes()
        .fold(17u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    (0..dim)
        .map(|i| ((seed.wrapping_add(i as u32 * 7919) % 1000) as f32) / 1000.0 - 0.5)
        .collect()
}

/// The texts of a request body, under `key` (`input` or `texts`).
pub fn texts(req: &Request, key: &str) -> Vec<String> {
    req.body[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// An OpenAI / Voyage answer for `req` with `dim`-value vectors, the items
/// listed in reverse order (their `index` says where each belongs).
pub fn data_answer(req: &Request, dim: usize) -> Reply {
    let texts = texts(req, "input");
    let data: Vec<Value> = texts
        .iter()
        .enumerate()
        .rev()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": fake_vector(t, dim)}))
        .collect();
    Reply::json(
        200,
        json!({"object": "list", "data": data, "model": req.body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1}}),
    )
}

/// A Cohere v2 answer for `req` with `dim`-value vectors.
pub fn cohere_answer(req: &Request, dim: usize) -> Reply {
    let texts = texts(req, "texts");
    let float: Vec<Vec<f32>> = texts.iter().map(|t| fake_vector(t, dim)).collect();
    Reply::json(
        200,
        json!({"id": "mock", "embeddings": {"float": float}, "texts": texts, "meta": {"api_version": {"version": "2"}}}),
    )
}

/// A clock whose waits are recorded and skipped: time jumps forward by the
/// wait instead, so a 90 s retry budget runs in milliseconds.
#[derive(Debug, Default)]
pub struct SkipClock {
    slept: Mutex<Vec<Duration>>,
}

impl SkipClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn slept(&self) -> Vec<Duration> {
        self.slept.lock().unwrap().clone()
    }
}

impl Clock for SkipClock {
    fn now(&self) -> Instant {
        Instant::now() + self.slept.lock().unwrap().iter().sum::<Duration>()
    }

    fn sleep(&self, d: Duration) {
        self.slept.lock().unwrap().push(d);
    }
}

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

pub fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}
