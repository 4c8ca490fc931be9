//! Loading ONNX Runtime: a missing file or a runtime older than the `api-24`
//! floor is an `Error::Onnx`, not a panic, and a good runtime still loads
//! afterwards in the same process. One test, in its own binary: the runtime is
//! loaded once per process.
#![cfg(feature = "semantic")]

// The semantic tests' helpers (model paths, setup).
#[path = "../semantic/support.rs"]
mod support;

use txtfp::semantic::local::{MIN_ONNX_RUNTIME, init_onnx_runtime, onnx_runtime_path};
use txtfp::{EmbeddingProvider, Error, LocalProvider};

#[test]
fn wrong_runtimes_are_errors_then_the_right_one_loads() {
    let Some(s) = crate::support::paths("ort_version") else {
        return;
    };
    assert_eq!(MIN_ONNX_RUNTIME, "1.24");
    let e = init_onnx_runtime("/nonexistent/libonnxruntime.so").unwrap_err();
    assert!(matches!(e, Error::Onnx(_)), "{e}");
    assert!(
        e.to_string().contains("/nonexistent/libonnxruntime.so")
            && e.to_string().contains("ORT_DYLIB_PATH"),
        "{e}"
    );
    let not_a_lib = std::env::temp_dir().join(format!("txtfp-notlib-{}.so", std::process::id()));
    std::fs::write(&not_a_lib, b"this is not a shared library").unwrap();
    assert!(matches!(init_onnx_runtime(&not_a_lib), Err(Error::Onnx(_))));
    std::fs::remove_file(&not_a_lib).unwrap();
    match &s.old_ort {
        Some(old) => {
            let e = init_onnx_runtime(old).unwrap_err();
            let m = e.to_string();
            assert!(
                matches!(e, Error::Onnx(_)) && m.contains("1.23.2") && m.contains(">= '1.24.x'"),
                "{m}"
            );
            // The builder takes the same path through the same check.
            let e = LocalProvider::builder()
                .onnx_runtime(old)
                .onnx_path(s.onnx())
                .tokenizer_path(s.tokenizer())
                .model_id("m")
                .build()
                .unwrap_err();
            assert!(matches!(e, Error::Onnx(_)), "{e}");
        }
        None => eprintln!(
            "*** SKIPPED (part): no ONNX Runtime below the floor (TXTFP_ORT_DYLIB_OLD) ***"
        ),
    }
    assert_eq!(onnx_runtime_path(), None);
    init_onnx_runtime(&s.ort).unwrap();
    assert_eq!(onnx_runtime_path().as_deref(), Some(s.ort.as_path()));
    init_onnx_runtime(&s.ort).unwrap(); // idempotent
    if let Some(old) = &s.old_ort {
        assert!(matches!(init_onnx_runtime(old), Err(Error::Config(_))));
    }
    let p = LocalProvider::from_onnx(&s.onnx(), &s.tokenizer(), txtfp::Pooling::Mean).unwrap();
    assert_eq!(p.dimension(), 384);
}
