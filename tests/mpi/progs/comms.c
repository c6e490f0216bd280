/*
 * comms.c - one communicator of each kind (tests/mpi/test_comms.sh). 4 ranks; each
 * communicator gets one MPI_Barrier, so calls refer to it. Members in world ranks:
 *   dup      MPI_Comm_dup(WORLD)                        {0,1,2,3}
 *   half     MPI_Comm_split(WORLD, r / 2)               {0,1} {2,3}
 *   three    MPI_Comm_create(WORLD, group {1,2,3})      {1,2,3}; rank 0 gets MPI_COMM_NULL
 *   cart     MPI_Cart_create 2x2, no reorder            {0,1,2,3}
 *   row      MPI_Cart_sub(cart, keep dim 1)             {0,1} {2,3}
 *   graph    MPI_Graph_create, a ring                   {0,1,2,3}
 *   dist     MPI_Dist_graph_create_adjacent, a ring     {0,1,2,3}
 *   inter    MPI_Intercomm_create(half, 0, WORLD, other half's leader)
 *            local {0,1} remote {2,3} (and the reverse)
 *   merged   MPI_Intercomm_merge(inter, high = r >= 2)  {0,1,2,3}
 * Then every one is freed.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
    int r;
    MPI_Comm dup, half, three, cart, row, graph, dist, inter, merged;
    MPI_Group world, g3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, r / 2, r, &half);
    int incl[3] = {1, 2, 3};
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 3, incl, &g3);
    MPI_Comm_create(MPI_COMM_WORLD, g3, &three);
    int dims[2] = {2, 2}, periods[2] = {0, 0}, keep[2] = {0, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, keep, &row);
    int index[4] = {2, 4, 6, 8}, edges[8] = {1, 3, 0, 2, 1, 3, 0, 2};
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph);
    int src = (r + 3) % 4, dst = (r + 1) % 4;
    int w = 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0,
                                   &dist);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, r < 2 ? 2 : 0, 99, &inter);
    MPI_Intercomm_merge(inter, r >= 2, &merged);

    MPI_Comm all[] = {dup, half, three, cart, row, graph, dist, inter, merged};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i] != MPI_COMM_NULL)
            MPI_Barrier(all[i]);
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i] != MPI_COMM_NULL)
            MPI_Comm_free(&all[i]);
    MPI_Group_free(&g3);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
