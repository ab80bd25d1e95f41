// demangle.cc: C++ (and legacy Rust, which uses the same scheme) symbol
// demangling through the C++ runtime's own demangler (libstdc++'s
// abi::__cxa_demangle), exposed to the C code; and the short form pprof
// shows by default: no return type, no parameter lists, no template
// arguments, no clone suffixes, no Rust hash.
#include <cxxabi.h>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" int pk_demangle(const char *mangled, char *buf, size_t n);
extern "C" int pk_demangle_mode_into(const char *mangled, int mode, char *buf, size_t n);

static void copy_out(const std::string &s, char *buf, size_t n)
{
    size_t k = s.size() < n - 1 ? s.size() : n - 1;
    std::memcpy(buf, s.data(), k);
    buf[k] = '\0';
}

// Whether s ends with "operator" plus optional spaces (the next
// brackets are the operator's name, not a list).
static bool after_operator(const std::string &s)
{
    size_t e = s.size();
    while (e > 0 && s[e - 1] == ' ')
        e--;
    return e >= 8 && s.compare(e - 8, 8, "operator") == 0 &&
           (e == 8 || !(std::isalnum((unsigned char)s[e - 9]) || s[e - 9] == '_'));
}

// Whether the space at i is inside an operator's name: "operator" starts
// the name it ends ("ns::operator new", "operator unsigned int").
static bool in_operator_name(const std::string &s, size_t i)
{
    size_t seg = s.rfind("::", i);
    seg = seg == std::string::npos ? 0 : seg + 2;
    size_t op = s.find("operator", seg);
    return op != std::string::npos && op < i &&
           (op == 0 || !(std::isalnum((unsigned char)s[op - 1]) || s[op - 1] == '_'));
}

// Drops what sits inside (...) and <...> at any depth, keeping
// "(anonymous namespace)" and operator names; then " const" and
// " [clone .xyz]" tails and a legacy Rust "::h<16 hex>" hash.
static std::string shorten(const std::string &full)
{
    std::string out;
    int depth = 0;
    for (size_t i = 0; i < full.size(); i++) {
        char c = full[i];
        if (depth == 0 && c == '(' && full.compare(i, 21, "(anonymous namespace)") == 0) {
            out += "(anonymous namespace)";
            i += 20;
            continue;
        }
        if (depth == 0 && c != ')' && std::strchr("(<>=-+*/%^&|~!,[]", c) && after_operator(out) &&
            (c != '(' || (i + 1 < full.size() && full[i + 1] == ')'))) {
            // The operator's own name: "operator()", "operator<<", "operator->".
            if (c == '(' && i + 1 < full.size() && full[i + 1] == ')') {
                out += "()";
                i++;
                continue;
            }
            // the longest operator token; what follows ('<' of template
            // arguments, '(' of parameters) is not the name
            static const char *const ops[] = { "->*", "<<=", ">>=", "<=>", "()", "[]", "->", "<<",
                                               ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
                                               "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "+",
                                               "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "<",
                                               ">", "," };
            for (const char *op : ops) {
                size_t k = std::strlen(op);
                if (full.compare(i, k, op) == 0) {
                    out.append(op);
                    i += k - 1;
                    break;
                }
            }
            // "operator< <T>": the demangler's space before template arguments
            continue;
        }
        if (c == '(' || c == '<') {
            depth++;
            continue;
        }
        if ((c == ')' || c == '>') && depth > 0) {
            depth--;
            continue;
        }
        if (depth == 0)
            out += c;
    }
    size_t clone = out.find(" [clone");
    if (clone != std::string::npos)
        out.erase(clone);
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    static const char *const tails[] = { " const", " volatile", " &&", " &" };
    for (const char *t : tails) {
        size_t k = std::strlen(t);
        if (out.size() > k && out.compare(out.size() - k, k, t) == 0)
            out.erase(out.size() - k);
    }
    // A template function's return type: what stands before the name's
    // last space that is not inside "(anonymous namespace)", "{lambda...}"
    // or an operator's name ("operator new", "operator bool").
    size_t cut = std::string::npos;
    int brace = 0;
    for (size_t i = 0; i < out.size(); i++) {
        char c = out[i];
        if (c == '{')
            brace++;
        else if (c == '}' && brace > 0)
            brace--;
        else if (c == '(' && out.compare(i, 21, "(anonymous namespace)") == 0)
            i += 20;
        else if (c == ' ' && brace == 0 && !in_operator_name(out, i))
            cut = i;
    }
    if (cut != std::string::npos && cut + 1 < out.size())
        out.erase(0, cut + 1);
    size_t h = out.rfind("::h");
    if (h != std::string::npos && out.size() - h == 19) {
        bool hex = true;
        for (size_t i = h + 3; i < out.size(); i++)
            hex = hex && std::isxdigit((unsigned char)out[i]);
        if (hex)
            out.erase(h);
    }
    return out.empty() ? full : out;
}

// Writes the demangled form of `mangled` into buf (NUL-terminated,
// truncated to n - 1 bytes). mode: 0 short, 1 full, 2 none (as
// profkit_demangle_mode). Returns 1 when it was a mangled name that was
// demangled, 0 otherwise (buf untouched).
extern "C" int pk_demangle_mode_into(const char *mangled, int mode, char *buf, size_t n)
{
    if (n == 0 || mode == 2 || std::strncmp(mangled, "_Z", 2) != 0)
        return 0;
    int status = 0;
    char *out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    if (status != 0 || !out) {
        std::free(out);
        return 0;
    }
    try {
        copy_out(mode == 0 ? shorten(out) : std::string(out), buf, n);
    } catch (...) {
        std::free(out);
        return 0;
    }
    std::free(out);
    return 1;
}

// The full demangled form (kept for callers that want it).
extern "C" int pk_demangle(const char *mangled, char *buf, size_t n)
{
    return pk_demangle_mode_into(mangled, 1, buf, n);
}
