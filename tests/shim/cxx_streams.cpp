// SPDX-License-Identifier: BSD-3-Clause
// cxx_streams.cpp -- std::ofstream and std::ifstream, for
// tests/shim/every_byte.sh: libstdc++'s basic_filebuf opens with fopen()
// and moves the data with write/writev/read on the descriptor, which the
// shim must record.  `cxx-streams FILE MIB` writes MIB MiB to FILE in 1 MiB
// pieces, reads it back, and prints "bytes=<written>".
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    long mib = std::atol(argv[2]);
    std::vector<char> buf(1 << 20, 'x');
    {
        std::ofstream out(argv[1], std::ios::binary);
        for (long i = 0; i < mib; i++)
            out.write(buf.data(), (std::streamsize)buf.size());
        if (!out)
            return 1;
    }
    long got = 0;
    {
        std::ifstream in(argv[1], std::ios::binary);
        while (in.read(buf.data(), (std::streamsize)buf.size()) || in.gcount() > 0)
            got += in.gcount();
    }
    std::printf("bytes=%ld\nread=%ld\n", mib << 20, got);
    return got == mib << 20 ? 0 : 1;
}
