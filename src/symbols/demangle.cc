// demangle.cc: C++ symbol demangling through the C++ runtime's own
// demangler (libstdc++'s abi::__cxa_demangle), exposed to the C code.
#include <cxxabi.h>
#include <cstdlib>
#include <cstring>

extern "C" int profkit_demangle(const char *mangled, char *buf, size_t n);

// Writes the demangled form of `mangled` into buf (NUL-terminated,
// truncated to n - 1 bytes). Returns 1 when it was a mangled C++ name,
// 0 otherwise (buf untouched).
extern "C" int profkit_demangle(const char *mangled, char *buf, size_t n)
{
    if (n == 0 || std::strncmp(mangled, "_Z", 2) != 0)
        return 0;
    int status = 0;
    char *out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    if (status != 0 || !out) {
        std::free(out);
        return 0;
    }
    std::strncpy(buf, out, n - 1);
    buf[n - 1] = '\0';
    std::free(out);
    return 1;
}
