/* Prints the baseline makespan baked into the custom spec's plan. */
#include <stdio.h>

#include "custom.h"

int main(void)
{
    printf("%.6f\n", CUSTOM_BASELINE_MAKESPAN_MS);
    return 0;
}
