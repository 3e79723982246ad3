/* split_list (cli/option_values.c), bench's comma lists of networks: the items of a good list,
 * and on a bad one (an empty item, too many) no item left made, so that a caller that returns
 * at once leaks nothing (bench's add_models once leaked "squeezenet1_0" of
 * "squeezenet1_0,,vgg11", 14 bytes under LeakSanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "option_values.h"

int main(void)
{
    char *items[OPTION_MAX_LIST];
    int n = -1;
    sm_status st;

    CHECK_EQ(split_list("--model", "resnet18,vgg11", items, &n, &st), 0);
    CHECK_EQ(n, 2);
    if (n == 2) {
        CHECK(!strcmp(items[0], "resnet18"));
        CHECK(!strcmp(items[1], "vgg11"));
    }
    for (int i = 0; i < n; i++)
        free(items[i]);

    /* an empty item after one made: the one made is freed, none is handed back */
    n = -1;
    CHECK_EQ(split_list("--model", "squeezenet1_0,,vgg11", items, &n, &st), -1);
    CHECK_EQ(n, 0);
    CHECK(strstr(st.msg, "--model 'squeezenet1_0,,vgg11': an empty item") != NULL);
    for (int i = 0; i < n; i++)
        free(items[i]);

    n = -1;
    CHECK_EQ(split_list("--model", "resnet18,", items, &n, &st), -1);
    CHECK_EQ(n, 0);
    for (int i = 0; i < n; i++)
        free(items[i]);

    /* one more item than OPTION_MAX_LIST: the 64 made are freed */
    char text[4 * (OPTION_MAX_LIST + 1) + 1] = "";
    for (int i = 0; i <= OPTION_MAX_LIST; i++)
        strcat(text, i ? ",net" : "net");
    n = -1;
    CHECK_EQ(split_list("--model", text, items, &n, &st), -1);
    CHECK_EQ(n, 0);
    CHECK(strstr(st.msg, "more than 64 items") != NULL);
    for (int i = 0; i < n; i++)
        free(items[i]);
    return check_summary();
}
