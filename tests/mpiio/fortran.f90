! SPDX-License-Identifier: BSD-3-Clause
! fortran.f90 -- MPI-IO from Fortran (mpi_f08 bindings), which reach the C
! library through PMPI_* and never through MPI_* (TRACING.md pitfall 3).
! Each rank writes 4 default integers (16 bytes) three times: write_at at
! rank*16, iwrite_at + MPI_Wait at 64 + rank*16, write_at_all at
! 128 + rank*16, on DIR/calls.dat.  Usage: mpiio_fortran DIR
program mpiio_fortran
  use mpi_f08
  implicit none
  type(MPI_File) :: fh
  type(MPI_Request) :: req
  integer :: rank, ierr, buf(4)
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=4096) :: dir

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, dir)
  buf = rank
  call MPI_File_open(MPI_COMM_WORLD, trim(dir)//'/calls.dat', MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  off = rank * 16
  call MPI_File_write_at(fh, off, buf, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_iwrite_at(fh, off + 64, buf, 4, MPI_INTEGER, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_File_write_at_all(fh, off + 128, buf, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program mpiio_fortran
