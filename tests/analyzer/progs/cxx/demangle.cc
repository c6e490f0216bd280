// demangle.cc - C++ names for the analyzer's demangling test: a member function of a
// class template in a namespace, and an overloaded free function.
#include <cstdio>
#include <cstdlib>

namespace ana {
volatile double sink;

template <typename T> struct Box {
    T base;
    __attribute__((noinline)) T spin(long n)
    {
        T s = base;
        for (long i = 0; i < n; i++) s = s * (T)0.999999 + (T)1;
        return s;
    }
};

__attribute__((noinline)) double twirl(long n, int)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0;
    return s;
}
} // namespace ana

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 150000000;
    ana::Box<double> b{0};
    ana::sink = b.spin(n) + ana::twirl(n, 1);
    std::printf("demangle done\n");
    return 0;
}
