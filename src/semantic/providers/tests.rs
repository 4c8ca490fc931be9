#[test]
fn env_key_takes_the_first_set_variable_and_names_missing_ones() {
    let e = super::env_key(&["TXTFP_TEST_UNSET_A", "TXTFP_TEST_UNSET_B"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "config error: TXTFP_TEST_UNSET_A / TXTFP_TEST_UNSET_B is not set"
    );
    // PATH is set wherever tests run; the unset name before it is skipped.
    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        super::env_key(&["TXTFP_TEST_UNSET_A", "PATH"]).unwrap(),
        path
    );
}
