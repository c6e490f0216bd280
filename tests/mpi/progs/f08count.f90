! f08count.f90 - fcount.f90 through the `use mpi_f08` binding, IERROR left out.
! 2 ranks. Each rank:
!   2 x MPI_SEND of 10 integers (40 B) to the other rank, 2 x MPI_RECV (MPI_STATUS_IGNORE)
!   MPI_IRECV (100 integers of room) + MPI_ISEND of 25 integers (100 B), MPI_WAITALL
!     with MPI_STATUSES_IGNORE: 1 receive of 100 B
!   MPI_ALLREDUCE of 3 doubles (24 B), MPI_COMM_SPLIT (color = rank), MPI_BARRIER on it
program f08count
  use mpi_f08
  implicit none
  integer :: rank, other, i
  type(MPI_Comm) :: sub
  type(MPI_Request) :: req(2)
  integer :: a(25), b(100)
  double precision :: x(3), y(3)
  call MPI_INIT()
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank)
  other = 1 - rank
  a = rank
  do i = 1, 2
    if (rank == 0) then
      call MPI_SEND(a, 10, MPI_INTEGER, other, 1, MPI_COMM_WORLD)
      call MPI_RECV(a, 10, MPI_INTEGER, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    else
      call MPI_RECV(a, 10, MPI_INTEGER, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call MPI_SEND(a, 10, MPI_INTEGER, other, 1, MPI_COMM_WORLD)
    end if
  end do
  call MPI_IRECV(b, 100, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, req(1))
  call MPI_ISEND(a, 25, MPI_INTEGER, other, 2, MPI_COMM_WORLD, req(2))
  call MPI_WAITALL(2, req, MPI_STATUSES_IGNORE)
  x = 1.0d0
  call MPI_ALLREDUCE(x, y, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, rank, 0, sub)
  call MPI_BARRIER(sub)
  call MPI_COMM_FREE(sub)
  call MPI_FINALIZE()
end program f08count
