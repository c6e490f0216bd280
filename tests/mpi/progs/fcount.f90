! fcount.f90 - MPI traffic known in advance, from Fortran (tests/mpi/test_fortran.sh).
! 2 ranks, `use mpi` (the mpif.h binding). Each rank:
!   2 x MPI_SEND of 10 integers (40 B) to the other rank, 2 x MPI_RECV (MPI_STATUS_IGNORE)
!   MPI_IRECV (100 integers of room) + MPI_ISEND of 25 integers (100 B), MPI_WAITALL
!     with MPI_STATUSES_IGNORE: 1 receive of 100 B
!   MPI_ALLREDUCE of 3 doubles (24 B), MPI_COMM_SPLIT (color = rank), MPI_BARRIER on it
program fcount
  use mpi
  implicit none
  integer :: ierr, rank, other, i, sub, req(2)
  integer :: a(25), b(100)
  double precision :: x(3), y(3)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  other = 1 - rank
  a = rank
  do i = 1, 2
    if (rank == 0) then
      call MPI_SEND(a, 10, MPI_INTEGER, other, 1, MPI_COMM_WORLD, ierr)
      call MPI_RECV(a, 10, MPI_INTEGER, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_RECV(a, 10, MPI_INTEGER, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_SEND(a, 10, MPI_INTEGER, other, 1, MPI_COMM_WORLD, ierr)
    end if
  end do
  call MPI_IRECV(b, 100, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, req(1), ierr)
  call MPI_ISEND(a, 25, MPI_INTEGER, other, 2, MPI_COMM_WORLD, req(2), ierr)
  call MPI_WAITALL(2, req, MPI_STATUSES_IGNORE, ierr)
  x = 1.0d0
  call MPI_ALLREDUCE(x, y, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, rank, 0, sub, ierr)
  call MPI_BARRIER(sub, ierr)
  call MPI_COMM_FREE(sub, ierr)
  call MPI_FINALIZE(ierr)
end program fcount
