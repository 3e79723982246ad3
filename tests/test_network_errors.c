/* Every mistake in a network file is refused with one line naming the file, the line and what
 * is wrong. Each case: the file, the line the message must name (0: none) and a phrase. */
#include "check.h"
#include "net_file.h"

#define NET "[network]\ninput = 3x8x8\n[layers]\n" /* lines 1-3; layers start at line 4 */

typedef struct error_case {
    const char *text;
    int line;
    const char *phrase;
} error_case;

static const error_case cases[] = {
    {NET "a = convv2d out=4 kernel=3\n", 4, "unknown layer type 'convv2d' (did you mean conv2d? "},
    /* the nearest shipped types by the fewest edits (relu7: relu and relu6 at one, batchnorm:
     * batchnorm2d at two), or else those the name begins; none for a name near nothing */
    {NET "a = relu7\n", 4, "'relu7' (did you mean relu or relu6? `scalemeter plugins`"},
    {NET "a = batchnorm\n", 4, "'batchnorm' (did you mean batchnorm2d? "},
    {NET "a = conv\n", 4, "'conv' (did you mean conv1d, conv2d, conv3d or conv_transpose2d? "},
    {NET "a = window\n", 4,
     "(did you mean window_attention, window_departition or window_partition? "},
    {NET "a = xyzzy\n", 4, "unknown layer type 'xyzzy' (`scalemeter plugins` lists"},
    {NET "a = relu\nb = relu from=nope\n", 5, "input 'nope' names no layer"},
    {NET "a = relu from=c\nb = relu from=a\nc = relu from=b\n", 0, "cycle"},
    {NET "a = relu from=a\n", 4, "its own output"},
    {NET "a = conv2d out=4 kernel=1\nb = add from=a,@input\n", 5, "4x8x8"},
    {NET "a = conv2d out=4 kernel=11 padding=1\n", 4, "larger than"},
    {NET "a = conv2d out=0 kernel=3\n", 4, "out=0 out of range"},
    {NET "a = conv2d out=-5 kernel=3\n", 4, "out=-5 out of range"},
    /* the key nobody read beside the missing one: the likely misspelling */
    {NET "a = conv2d out=4 kernal=3\n", 4,
     "missing parameter kernel (and unknown parameter kernal given)"},
    /* an unknown key lists what the type reads, so that its right spelling is in sight */
    {NET "a = conv2d out=4 kernel=3 kernal=3\n", 4,
     "unknown parameter kernal (it takes out, kernel, stride, padding, dilation, groups, bias)"},
    /* keys a plugin builds in its own buffer (conv3d's kernel_d) are listed as asked */
    {"[network]\ninput = 1x4x8x8\n[layers]\na = conv3d out=2 kernel=1 kernal=1\n", 4,
     "unknown parameter kernal (it takes out, kernel, kernel_d, stride, stride_d, padding, "
     "padding_d, dilation, dilation_d, groups, bias)"},
    {NET "a = flatten strt=1\n", 4, "(flatten): unknown parameter strt (it takes start)"},
    {NET "a = add from=@input,@input x=1\n", 4, "unknown parameter x (it takes no parameters)"},
    {NET "a = conv2d out=4 kernel=3 out=5\n", 4, "given twice"},
    {NET "a = conv2d out=4 kernel=three\n", 4, "kernel=three is not an integer"},
    {NET "a = conv2d out=4 kernel=3 bias=maybe\n", 4, "bias=maybe is not true or false"},
    {NET "a = conv2d out=4 kernel=3 stray\n", 4, "expected key=value, got 'stray'"},
    {NET "a = relu\na = relu\n", 5, "layer name a is already used at line 4"},
    {NET "a = relu from=@in\n", 4, "@in used outside a block"},
    /* a layer named @input or @in was accepted, and from= naming it read the input instead */
    {NET "@input = conv2d out=5 kernel=1\nb = relu from=@input\n", 4,
     "the layer name @input: a name beginning with '@' is reserved"},
    {NET "c = relu\n[block blk]\n@in = relu\nb = relu from=@in\n", 6,
     "the layer name @in: a name beginning with '@' is reserved"},
    /* an empty name in from's list was passed over: from=a,,b read as a,b, from=, as none */
    {NET "a = relu\nb = concat from=a,,@input\n", 5, "from=a,,@input: an empty name in the list"},
    {NET "a = relu\nb = relu from=,\n", 5, "from=,: an empty name"},
    {NET "a = relu\nb = add from=a,\n", 5, "from=a,: an empty name"},
    {NET "a = relu\nb = add from=,a\n", 5, "from=,a: an empty name"},
    /* text after a header was dropped: every file through the INI reader refuses it */
    {"[network] x\ninput = 3x8x8\n[layers]\na = relu\n", 1,
     "'x' after the header [network]: a section header stands alone on its line"},
    {NET "a = relu\n[block b] c = relu\n", 5, "'c = relu' after the header [block b]"},
    {"[network]\ninput = 3x8x8\n[layers] ; a comment\na = relu\n[layers]#\n", 5,
     "'#' after the header [layers]"},
    {"[network]\ninput = 3x8x8\n[]\na = relu\n", 3, "a section header without a name"},
    {"[network]\nname = mine # v2\ninput = 3x8x8\n[layers]\na = relu\n", 2,
     "name = mine # v2: '#' begins a comment on a line of its own only"},
    {"[network]\ninput = 3x0x8\n[layers]\na = relu\n", 2, "input = 3x0x8"},
    {"[network]\ninput = 3x4000000000x8\n[layers]\na = relu\n", 2, "input = 3x4000000000x8"},
    /* a shape is sizes joined by single 'x's, nothing before, between or after */
    {"[network]\ninput = 3x32x\n[layers]\na = relu\n", 2, "input = 3x32x:"},
    {"[network]\ninput = 3xx32\n[layers]\na = relu\n", 2, "input = 3xx32:"},
    {"[network]\ninput = x3x32\n[layers]\na = relu\n", 2, "input = x3x32:"},
    {"[network]\ninput = 3x 32\n[layers]\na = relu\n", 2, "input = 3x 32:"},
    {"[network]\ninput = +3x32\n[layers]\na = relu\n", 2, "input = +3x32:"},
    {"[network]\ninput = 3x-32\n[layers]\na = relu\n", 2, "input = 3x-32:"},
    {"[network]\ninput = 0x32\n[layers]\na = relu\n", 2, "input = 0x32:"},
    {"[network]\ninput = 3X32\n[layers]\na = relu\n", 2, "input = 3X32:"},
    {"[network]\ninput = 3x32x8x8x8x8x8x8x8\n[layers]\na = relu\n", 2, "expected up to"},
    {"[network]\ninput =\n[layers]\na = relu\n", 2, "expected up to"},
    {"[layers]\na = relu\n", 0, "no [network] section"},
    {"[network]\ninput = 3x8x8\nsize = 4\n", 3, "unknown key 'size'"},
    /* the recipe's precision: one the devices model, named at its line */
    {"[network]\ninput = 3x8x8\nprecision = fp8\n", 3,
     "precision = fp8: expected fp32, tf32, fp16 or bf16"},
    {"[network]\ninput = 3x8x8\nprecision = BF16\n", 3, "precision = BF16: expected"},
    {"[network]\ninput = 3x8x8\nprecision =\n", 3, "precision = : expected"},
    {NET "[blocks x]\na = relu\n", 4, "unknown section [blocks x]"},
    {NET "this line has no equals sign\n", 4, "syntax error"},
    {NET "a = relu                                                                               "
         "                                                                                     "
         "                           \n",
     4, "line longer than"},
    {NET "[block b]\nuse = missing\n", 4, "no [template missing]"},
    {NET "[template t]\nc = conv2d out=${width} kernel=1\n[block b]\nuse = t\nout = 4\n", 5,
     "no argument 'width'"},
    {NET "[template t]\nc = conv2d out=${w} kernel=1\n[block b]\nuse = t\nw = 4\nx = 1\n", 6,
     "argument 'x' is not used"},
    /* a template's argument the block does not give, misspelt, or in a layer's name: which
     * argument, of which layer, template and block (line 6), and what the block gives; this
     * said "t.ini:5 (block at line 6): layer c: in ${w}: no argument 'w'" */
    {NET "[template t]\nc = conv2d out=${w} kernel=1\n[block b]\nuse = t\n", 5,
     "layer c of [template t]: ${w}: [block b] (line 6) gives no argument 'w' (it gives none: "
     "add w = VALUE under it)"},
    {NET "[template t]\nc = conv2d out=${w} kernel=1\n[block b]\nuse = t\nwidth = 4\n", 5,
     "[block b] (line 6) gives no argument 'w' (it gives width)"},
    {NET "[template t]\n${n} = relu\n[block b]\nuse = t\nw = 1\n", 5,
     "the layer name ${n} of [template t]: ${n}: [block b] (line 6) gives no argument 'n'"},
    {NET "[template t]\nc = conv2d out=${w*i} kernel=1\n[block b]\nuse = t\nw = 4\n", 5,
     "${w*i}: i is the index of a repeated block, and [block b] (line 6) has no {A..B}"},
    /* the block's arguments themselves: empty, written as ${...}, naming what is not there;
     * "argument w = : unexpected end", "argument w = ${i}: unexpected character" before */
    {NET "[template t]\nc = conv2d out=${w} kernel=1\n[block b]\nuse = t\nw =\n", 8,
     "[block b]: argument w of [template t] is empty: give it an integer expression (w = 64)"},
    {NET "[template t]\nc = conv2d out=${w} kernel=1\n[block b{1..2}]\nuse = t\nw = ${i}\n", 8,
     "[block b{1..2}]: argument w = ${i}: write it without ${...}, which only [template t]'s "
     "layers use (w = i, w = 2 * i)"},
    {NET "[template t]\nc = conv2d out=${w} kernel=1\n[block b{1..2}]\nuse = t\nw = x\n", 8,
     "[block b{1..2}]: argument w = x: 'x' is not known here: an argument is an integer "
     "expression of numbers and i, the repetition's index"},
    {NET "[template t]\nc = conv2d out=${w} kernel=1\n[block b]\nuse = t\nw = i\n", 8,
     "argument w = i: i is the index of a repeated block, and [block b] (line 6) has no {A..B}"},
    {NET "[template t]\nc = conv2d out=${w/0} kernel=1\n[block b]\nuse = t\nw = 4\n", 5,
     "division by zero"},
    {NET "[block b{3..1}]\nc = relu\n", 4, "repetition"},
    {NET "a = add from=@input\n", 4, "(add): takes at least 2 inputs, got 1"},
    /* the one 64-bit quotient that does not fit (SIGFPE on x86 when computed), and its % */
    {NET "[template t]\nc = conv2d out=${w/(0-1)} kernel=1\n[block b]\nuse = t\n"
         "w = 0-9223372036854775807-1\n",
     5, "overflow"},
    {NET "[template t]\nc = conv2d out=${4+w%(0-1)} kernel=1\n[block b]\nuse = t\n"
         "w = 0-9223372036854775807-1\n",
     5, "overflow"},
    {NET "[template t]\nc = conv2d out=${(0-9223372036854775807-1)/(0-1)} kernel=1\n"
         "[block b]\nuse = t\n",
     5, "overflow"},
    {NET "[template t]\nc = conv2d out=${-(0-9223372036854775807-1)} kernel=1\n"
         "[block b]\nuse = t\n",
     5, "overflow"},
    {NET "[template t]\nc = conv2d out=${w*w*w} kernel=1\n[block b]\nuse = t\nw = 3000000\n", 5,
     "overflow"},
    /* 16777216 filters of 65535x65535 over a 65535-pixel padded input: MACs overflow 64 bits */
    {"[network]\ninput = 16777216x1x1\n[layers]\n"
     "a = conv2d out=16777216 kernel=65535 padding=32767\n",
     4, "overflow"},
    /* a tied head's matrix is counted at its embedding: one of other rows, or none, left its
     * 50257 x 768 weights out of every count (768,000 weights for GPT-2's head and a
     * 1000-row table) */
    {"[network]\ninput = 16\n[layers]\ne = embedding vocab=1000 dim=768\n"
     "h = lm_head vocab=50257\n",
     5,
     "layer h (lm_head): its 50257 x 768 matrix is tied to an embedding (counted there), and "
     "the network has none of 50257 rows of 768: give it one (embedding vocab=50257 "
     "dim=768), or write an untied head (linear out=50257 bias=false)"},
    {"[network]\ninput = 16\n[layers]\ne = embedding vocab=50257 dim=512\n"
     "p = linear out=768\nh = lm_head vocab=50257\n",
     6, "its 50257 x 768 matrix is tied to an embedding"},
    {"[network]\ninput = 16x768\n[layers]\nn = layernorm\nh = lm_head vocab=100\n", 5,
     "the network has none of 100 rows of 768"},
    /* the fifth audit: a template no block uses was never checked (an unknown type, a
     * negative size and a misspelt key in it passed); an empty network name headed the table
     * as " (net.ini)"; a control byte in a name reached the terminal raw */
    {NET "a = relu\n[template bottleneck]\nc = conv9d out=-4 kernal=3\n", 5,
     "[template bottleneck] is used by no block"},
    {"[network]\nname =\ninput = 3x8x8\n[layers]\na = relu\n", 2, "name: an empty name"},
    {"[network]\nname = x\x1b[31m\ninput = 3x8x8\n[layers]\na = relu\n", 2,
     "name: a control character in it"},
    {NET "esc\x1b[31m = relu\n", 4, "the layer name 'esc\\x1b[31m': a name from= cannot spell"},
};

/* Text with the message's file:line and phrase, or a failure naming the case. */
static void expect_error(const sm_registry *reg, const char *what, const char *text, int line,
                         const char *phrase)
{
    sm_status st;
    sm_network *net = net_load(reg, text, 0, &st);
    CHECK(net == NULL);
    if (net) {
        fprintf(stderr, "%s: loaded but should not have\n", what);
        sm_network_free(net);
        return;
    }
    char where[96];
    snprintf(where, sizeof where, "%s:%d", net_file_path, line);
    CHECK_CONTAINS(st.msg, where);
    CHECK_CONTAINS(st.msg, phrase);
    CHECK(strchr(st.msg, '\n') == NULL);
}

/* Inputs a fuzzer found: nesting that would exhaust the stack, expansion without bound. */
static void deep_and_large(const sm_registry *reg)
{
    /* a block argument 30,000 brackets deep, continued over indented lines (each under inih's
     * 200-character limit) */
    size_t cap = 200000, used = 0;
    char *text = malloc(cap);
    used += (size_t)snprintf(text, cap,
                             NET "[template t]\nc = conv2d out=${w} kernel=1\n"
                                 "[block b]\nuse = t\nw = (");
    for (int i = 0; i < 30000; i++) {
        if (i % 100 == 0)
            used += (size_t)snprintf(text + used, cap - used, "\n  ");
        text[used++] = '(';
    }
    snprintf(text + used, cap - used, "\n");
    expect_error(reg, "30,000 brackets", text, 8, "nested more than 200 deep");
    /* 200 levels are still fine: (((...4...))) */
    used = (size_t)snprintf(text, cap,
                            NET "[template t]\nc = conv2d out=${w} kernel=1\n"
                                "[block b]\nuse = t\nw = ");
    for (int i = 0; i < 199; i++) {
        if (i % 100 == 0)
            used += (size_t)snprintf(text + used, cap - used, "\n  ");
        text[used++] = '(';
    }
    used += (size_t)snprintf(text + used, cap - used, "4");
    for (int i = 0; i < 199; i++) {
        if (i % 100 == 0)
            used += (size_t)snprintf(text + used, cap - used, "\n  ");
        text[used++] = ')';
    }
    snprintf(text + used, cap - used, "\n");
    sm_status st;
    sm_network *net = net_load(reg, text, 0, &st);
    CHECK(net != NULL);
    if (!net)
        fprintf(stderr, "199 brackets: %s\n", st.msg);
    else
        sm_network_free(net);
    free(text);

    /* 3 layers x 500 repetitions = 1,500 layers against a limit of 1,000 */
    const char *big =
        NET "[template t]\nx = relu\ny = relu\nz = relu\n[block b{1..500}]\nuse = t\n";
    setenv("SCALEMETER_MAX_LAYERS", "1000", 1);
    expect_error(reg, "layer limit", big, 8, "more than 1000 layers; set SCALEMETER_MAX_LAYERS");
    setenv("SCALEMETER_MAX_LAYERS", "2000", 1);
    net = net_load(reg, big, 0, &st);
    CHECK(net != NULL && net->n_layers == 1500);
    if (net)
        sm_network_free(net);
    setenv("SCALEMETER_MAX_LAYERS", "lots", 1);
    net = net_load(reg, big, 0, &st);
    CHECK(net == NULL);
    CHECK_CONTAINS(st.msg, "SCALEMETER_MAX_LAYERS=lots");
    if (net)
        sm_network_free(net);
    unsetenv("SCALEMETER_MAX_LAYERS");
}

/* An expression longer than any fixed buffer, continued over indented lines, is read whole:
 * 10 + 130 zeros + 100 is 110 channels (a 256-byte buffer once made it 10). */
static void long_expression(const sm_registry *reg)
{
    char text[4096];
    size_t used = (size_t)snprintf(text, sizeof text, NET "a = conv2d out=${10");
    for (int i = 0; i < 130; i++)
        used +=
            (size_t)snprintf(text + used, sizeof text - used, "%s +0", i % 20 == 0 ? "\n " : "");
    snprintf(text + used, sizeof text - used, "\n  +100} kernel=1\n");
    CHECK(strlen(text) > 400);
    sm_status st;
    sm_network *net = net_load(reg, text, 0, &st);
    CHECK(net != NULL);
    if (!net) {
        fprintf(stderr, "long expression: %s\n", st.msg);
        return;
    }
    CHECK_EQ(net->layers[0].out.dim[0], 110);
    sm_network_free(net);
    /* and an error in its far end is reported, not cut off */
    snprintf(text + used, sizeof text - used, "\n  +100/0} kernel=1\n");
    expect_error(reg, "long expression", text, 4, "division by zero");
}

int main(void)
{
    sm_status st;
    sm_registry *reg;
    if (sm_registry_open(&reg, &st)) {
        fprintf(stderr, "%s\n", st.msg);
        return 1;
    }
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sm_network *net = net_load(reg, cases[i].text, 0, &st);
        CHECK(net == NULL);
        if (net) {
            fprintf(stderr, "case %zu loaded but should not have\n", i);
            sm_network_free(net);
            continue;
        }
        char where[96]; /* the file, and the line where the case names one */
        if (cases[i].line)
            snprintf(where, sizeof where, "%s:%d", net_file_path, cases[i].line);
        else
            snprintf(where, sizeof where, "%s", net_file_path);
        CHECK_CONTAINS(st.msg, where);
        CHECK_CONTAINS(st.msg, cases[i].phrase);
        CHECK(strchr(st.msg, '\n') == NULL); /* one line */
    }
    deep_and_large(reg);
    long_expression(reg);
    sm_registry_free(reg);
    return check_summary();
}
