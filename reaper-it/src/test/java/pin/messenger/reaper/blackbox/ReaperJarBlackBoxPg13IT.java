package pin.messenger.reaper.blackbox;

/**
 * {@link ReaperJarBlackBoxIT}'s core scenarios (migrate, run-once over the spec's Tests table, a
 * poison row, a locked row, a held run lock, the batch bound, a refused configuration) against
 * PostgreSQL 13, the oldest supported version of the matrix. The whole matrix (13..17): {@code
 * dev/pg-matrix.sh}.
 */
@PostgresServer.Version("13")
class ReaperJarBlackBoxPg13IT extends ReaperJarBlackBoxIT {}
