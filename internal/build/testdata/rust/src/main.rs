// The Rust test guest of package build.
fn main() {
    println!("hello from Rust");
}
