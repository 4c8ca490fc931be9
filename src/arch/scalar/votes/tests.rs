use super::*;

#[test]
fn spread_table_puts_bit_k_in_byte_k() {
    assert_eq!(SPREAD[0], 0);
    assert_eq!(SPREAD[1], 1);
    assert_eq!(SPREAD[0x80], 1 << 56);
    assert_eq!(SPREAD[0xff], 0x0101_0101_0101_0101);
    assert_eq!(SPREAD[0b101], 0x0001_0001);
}
