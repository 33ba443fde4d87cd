// A Rust program as rustc builds it (no frame pointers, unwind tables
// with a personality routine): a thread named "spinner" spins in
// leaf <- middle <- outer, each owning a Vec so its frame has a landing
// pad; the main thread waits in park. Prints "ready" once the spinner runs.
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[inline(never)]
fn leaf(v: &mut Vec<u64>, n: u64) -> u64 {
    let mut s = 0u64;
    for i in 0..n {
        s = s.wrapping_add(v[(i % 64) as usize] ^ i);
    }
    v[0] = s;
    black_box(s)
}

#[inline(never)]
fn middle(v: &mut Vec<u64>) -> u64 {
    let mut w = black_box(vec![1u64; 64]);
    let mut s = 0;
    for _ in 0..100 {
        s ^= leaf(v, 1000);
    }
    w[1] = s;
    black_box(w[1])
}

#[inline(never)]
fn outer(started: &AtomicBool) -> u64 {
    let mut v = black_box(vec![3u64; 64]);
    started.store(true, Ordering::SeqCst);
    let mut s = 0;
    loop {
        s ^= middle(&mut v);
        if black_box(s) == 42 {
            return s;
        }
    }
}

fn main() {
    let started = Arc::new(AtomicBool::new(false));
    let st = started.clone();
    let t = std::thread::Builder::new()
        .name("spinner".into())
        .spawn(move || outer(&st))
        .unwrap();
    while !started.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    println!("ready");
    t.join().unwrap();
}
