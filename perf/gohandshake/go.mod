module gohandshake

go 1.22
