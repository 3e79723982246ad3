/* cli/json_writer.c: separators, nesting, escaping and non-finite numbers, each against JSON
 * text written out by hand. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "json_writer.h"

/* What the writer wrote into a memory stream, and its misuse count. */
typedef struct {
    json_writer w;
    FILE *f;
    char *text;
    size_t len;
} capture;

static void start(capture *c)
{
    c->text = NULL;
    c->f = open_memstream(&c->text, &c->len);
    json_init(&c->w, c->f);
}

static const char *finish(capture *c)
{
    fclose(c->f);
    return c->text;
}

int main(void)
{
    capture c;

    /* members: ", " between them, ": " after keys, a newline after the outermost */
    start(&c);
    json_begin_object(&c.w);
    json_field_int(&c.w, "a", 1);
    json_field_string(&c.w, "b", "x");
    json_field_bool(&c.w, "c", 0);
    json_key(&c.w, "d");
    json_null(&c.w);
    json_end(&c.w);
    CHECK_STR_EQ(finish(&c), "{\"a\": 1, \"b\": \"x\", \"c\": false, \"d\": null}\n");
    CHECK_EQ(c.w.errors, 0);
    free(c.text);

    /* nesting: arrays in objects in arrays; empty containers */
    start(&c);
    json_begin_object(&c.w);
    json_key(&c.w, "rows");
    json_begin_array(&c.w);
    json_begin_object(&c.w);
    json_key(&c.w, "dims");
    json_begin_array(&c.w);
    json_int(&c.w, 3);
    json_int(&c.w, -224);
    json_end(&c.w);
    json_end(&c.w);
    json_begin_object(&c.w);
    json_end(&c.w);
    json_begin_array(&c.w);
    json_end(&c.w);
    json_end(&c.w);
    json_field_int(&c.w, "n", INT64_C(9007199254740993)); /* 2^53 + 1: not through a double */
    json_end(&c.w);
    CHECK_STR_EQ(finish(&c),
                 "{\"rows\": [{\"dims\": [3, -224]}, {}, []], \"n\": 9007199254740993}\n");
    CHECK_EQ(c.w.errors, 0);
    free(c.text);

    /* one member a line, indented by the line containers around it */
    start(&c);
    json_begin_object(&c.w);
    json_key(&c.w, "curves");
    json_begin_array(&c.w);
    json_one_per_line(&c.w);
    json_begin_object(&c.w);
    json_key(&c.w, "points");
    json_begin_array(&c.w);
    json_one_per_line(&c.w);
    json_int(&c.w, 1);
    json_int(&c.w, 2);
    json_end(&c.w);
    json_end(&c.w);
    json_end(&c.w);
    json_end(&c.w);
    CHECK_STR_EQ(finish(&c), "{\"curves\": [\n  {\"points\": [\n    1,\n    2\n  ]}\n]}\n");
    free(c.text);

    /* strings: quote, backslash, control characters; UTF-8 passes through; keys escaped too */
    start(&c);
    json_begin_array(&c.w);
    json_string(&c.w, "a\"b\\c\nd\te\x01"
                      "f\x7f");
    json_string(&c.w, "\xc3\xa9t\xc3\xa9");
    json_string(&c.w, NULL);
    json_begin_object(&c.w);
    json_field_int(&c.w, "k\"", 0);
    json_end(&c.w);
    json_end(&c.w);
    CHECK_STR_EQ(finish(&c), "[\"a\\\"b\\\\c\\nd\\te\\u0001f\\u007f\", \"\xc3\xa9t\xc3\xa9\", "
                             "null, {\"k\\\"\": 0}]\n");
    free(c.text);

    /* bytes that begin no well-formed UTF-8 sequence are U+FFFD (RFC 3629's table 3-7):
     * Latin-1's e-acute, an overlong '/', a surrogate, past U+10FFFF, a cut-off sequence;
     * the well-formed ones around them pass through */
    start(&c);
    json_begin_array(&c.w);
    json_string(&c.w, "caf\xe9");
    json_string(&c.w, "\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82");
    json_string(&c.w, "\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
    json_end(&c.w);
    CHECK_STR_EQ(finish(&c), "[\"caf\\ufffd\", "
                             "\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
                             "\\ufffd\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\", "
                             "\"\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"]\n");
    free(c.text);

    /* whole numbers in every digit, rounded, never in an exponent; inf is null */
    start(&c);
    json_begin_array(&c.w);
    json_whole(&c.w, 1e17);
    json_whole(&c.w, 2.5);
    json_whole(&c.w, -0.0);
    json_whole(&c.w, INFINITY);
    json_end(&c.w);
    CHECK_STR_EQ(finish(&c), "[100000000000000000, 3, 0, null]\n");
    free(c.text);

    /* numbers: six digits by default, more when asked; inf, -inf and nan are null; -0 is 0 */
    start(&c);
    json_begin_array(&c.w);
    json_number(&c.w, 1.0 / 3.0);
    json_number(&c.w, 2.5e-7);
    json_number(&c.w, INFINITY);
    json_number(&c.w, -INFINITY);
    json_number(&c.w, NAN);
    json_number(&c.w, -0.0);
    json_number_digits(&c.w, 0.1, 17);
    json_number_digits(&c.w, 46758048.0, 17);
    json_number_digits(&c.w, INFINITY, 17);
    json_end(&c.w);
    CHECK_STR_EQ(finish(&c), "[0.333333, 2.5e-07, null, null, null, 0, 0.10000000000000001, "
                             "46758048, null]\n");
    free(c.text);

    /* misuse is counted: a value with no key, a key with no value, an end too many */
    start(&c);
    json_begin_object(&c.w);
    json_int(&c.w, 1);
    json_key(&c.w, "a");
    json_end(&c.w);
    json_end(&c.w);
    CHECK_STR_EQ(finish(&c), "{1\"a\": null}\n");
    CHECK_EQ(c.w.errors, 3);
    free(c.text);

    return check_summary();
}
