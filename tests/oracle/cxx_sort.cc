// cxx_sort.cc: a C++ program whose profile holds template functions,
// operators, inlined STL frames and a namespace: what short demangling
// must name as Go pprof does (tests/cli/demangle_gopprof.sh).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>
namespace app {
template <typename T> struct Box {
    T v;
    bool operator<(const Box &o) const { return v < o.v; }
};
static std::vector<int> make(size_t n)
{
    std::vector<int> v(n);
    for (auto &x : v)
        x = rand();
    return v;
}
long sum_map(int n)
{
    std::map<std::string, int> m;
    for (int i = 0; i < n; i++)
        m[std::to_string(i % 5000)] += i;
    long s = 0;
    for (auto &kv : m)
        s += kv.second;
    return s;
}
} // namespace app
int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    long s = 0;
    for (int r = 0; r < rounds; r++) {
        auto v = app::make(400000);
        std::sort(v.begin(), v.end());
        std::vector<app::Box<double>> b(100000);
        for (auto &x : b)
            x.v = rand();
        std::sort(b.begin(), b.end());
        s += v[0] + app::sum_map(20000);
    }
    printf("%ld\n", s);
    return 0;
}
