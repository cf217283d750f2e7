// A spec path that names a directory, a device or a FIFO is refused before
// it is opened (opening a FIFO waits for a writer; reading /dev/zero never
// ends).

mod directory {
    splice_macros::taxonomy!(".");
}

mod device {
    splice_macros::taxonomy!("/dev/zero");
}

fn main() {}
