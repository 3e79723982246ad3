/* The measurement CSV's reader (core/src/fit/runs_csv.c) on RFC 4180's quoting: quoted commas,
 * quotes and newlines are read; text after a closing quote is an error naming file:line. And
 * predict's accumulate column: a row of K > 1 micro-batches is refused at its line. */
#include "check.h"
#include "scalemeter/fit.h"

#define HEADER "model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step\n"

static char path[4096];

/* Writes text to the test's file and reads it: 0 with *runs, or -1 with the message in st. */
static int read_text(const char *text, sm_runs **runs, sm_status *st)
{
    FILE *f = fopen(path, "w");
    if (!f)
        check_fatal(__FILE__, __LINE__, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return sm_runs_read(path, runs, st);
}

/* The message for text, which must fail. */
static const char *error_of(const char *text, sm_status *st)
{
    sm_runs *runs = NULL;
    if (read_text(text, &runs, st) == 0) {
        sm_runs_free(runs);
        return "(read without an error)";
    }
    return st->msg;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_runs_csv OUTDIR\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/runs_quoting.csv", argv[1]);
    sm_status st;
    sm_runs *runs;
    char want[4200];

    /* quoted fields: a comma, a doubled quote, a newline inside; CRLF line ends; the rows
     * after the two-line record keep their own line numbers (1 header, 2, 3-4, 5) */
    int rc = read_text(HEADER "\"resnet18\",224,8,1,1,0.1,0.2,0.3,0.01,0.51\r\n"
                              "\"my,net \"\"v2\"\"\nsecond line\",32,4,1,1,0.1,0.2,0.3,0.01,0.51\n"
                              "alexnet,224,2,1,1,0.1,0.2,0.3,0.01,0.51\n",
                       &runs, &st);
    CHECK_MSG(rc == 0, "%s", st.msg);
    if (rc == 0) {
        CHECK_EQ(runs->n, 3);
        CHECK_STR_EQ(runs->rows[0].model, "resnet18");
        CHECK_STR_EQ(runs->rows[1].model, "my,net \"v2\"\nsecond line");
        CHECK_EQ(runs->rows[1].image, 32);
        CHECK_EQ(runs->rows[1].batch, 4);
        CHECK_EQ(runs->rows[1].line, 3);
        CHECK_STR_EQ(runs->rows[2].model, "alexnet");
        CHECK_EQ(runs->rows[2].line, 5);
        sm_runs_free(runs);
    }

    /* accumulate 1 or empty is a step as fit's equations have it; 4 is refused at line 3 */
    rc = read_text("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,t_step,"
                   "accumulate\n"
                   "resnet18,224,8,1,1,0.1,0.2,0.3,0.01,0.51,1\n"
                   "resnet18,224,8,1,1,0.1,0.2,0.3,0.01,0.51,\n",
                   &runs, &st);
    CHECK_MSG(rc == 0, "%s", st.msg);
    if (rc == 0) {
        CHECK_EQ(runs->n, 2);
        sm_runs_free(runs);
    }
    snprintf(want, sizeof want, "%s:3: accumulate 4: a step of several micro-batches", path);
    CHECK_CONTAINS(error_of("model,image,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,t_grad,"
                            "t_step,accumulate\n"
                            "resnet18,224,8,1,1,0.1,0.2,0.3,0.01,0.51,1\n"
                            "resnet18,224,8,1,1,0.1,0.2,0.3,0.01,1.81,4\n",
                            &st),
                   want);

    /* "resnet18"50 was read as resnet18: text after the closing quote is refused */
    snprintf(want, sizeof want, "%s:2: text after the closing quote of field 1", path);
    CHECK_CONTAINS(error_of(HEADER "\"resnet18\"50,224,8,1,1,0.1,0.2,0.3,0.01,0.51\n", &st), want);
    /* on the line where it is, inside a record of two lines */
    snprintf(want, sizeof want, "%s:3: text after the closing quote of field 1", path);
    CHECK_CONTAINS(error_of(HEADER "\"a\nb\"x,224,8,1,1,0.1,0.2,0.3,0.01,0.51\n", &st), want);
    /* in the header too */
    snprintf(want, sizeof want, "%s:1: text after the closing quote of header field 2", path);
    CHECK_CONTAINS(error_of("model,\"image\"s,batch,nodes,gpus_per_node,t_infer,t_fwd,t_bwd,"
                            "t_grad,t_step\n",
                            &st),
                   want);
    /* a quote opened and never closed: the line where it opened */
    snprintf(want, sizeof want, "%s:3: unterminated quote", path);
    CHECK_CONTAINS(error_of(HEADER "resnet18,224,8,1,1,0.1,0.2,0.3,0.01,0.51\n"
                                   "\"alexnet,224,8,1,1,0.1,0.2,0.3,0.01,0.51\n"
                                   "vgg11,224,8,1,1,0.1,0.2,0.3,0.01,0.51\n",
                            &st),
                   want);
    /* a quote inside an unquoted field is text, as before */
    rc = read_text(HEADER "res\"net,224,8,1,1,0.1,0.2,0.3,0.01,0.51\n", &runs, &st);
    CHECK_MSG(rc == 0, "%s", st.msg);
    if (rc == 0) {
        CHECK_STR_EQ(runs->rows[0].model, "res\"net");
        sm_runs_free(runs);
    }
    return check_summary();
}
