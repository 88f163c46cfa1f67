// Drop-in replacement for io.temporal.testserver.TestServer.main (temporal-test-server
// 1.38.0) that listens on 127.0.0.1 only. TestServer builds its server with
// Grpc.newServerBuilderForPort(port, ...), which binds every interface (0.0.0.0 / [::]);
// a server a test starts must listen on loopback only.
//
// Same arguments and behaviour as TestServer.main: `<port> [--enable-time-skipping]`;
// without the flag time skipping starts locked (the SDK unlocks it itself); the initial
// time is 0 (= the current time); usage and "Unknown flag" go to stderr and return; nothing
// is printed to stdout. Shutdown (SIGTERM/SIGINT) does what TestServer's
// PortBoundTestServer.close() does.
//
// Compiled once into the cache by scripts/temporal-test-server-build.sh and run by
// scripts/temporal-test-server.sh.
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

public final class LoopbackTestServer {
  private static final String LOOPBACK = "127.0.0.1";

  private LoopbackTestServer() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length < 1 || args.length > 2) {
      System.err.println("Usage: <command> <port> <flags>");
      System.err.println("Flags:");
      System.err.println("--enable-time-skipping - to enable time skipping on start");
      return;
    }
    int port = Integer.parseInt(args[0]);
    boolean enableTimeSkipping = false;
    if (args.length > 1) {
      if ("--enable-time-skipping".equalsIgnoreCase(args[1])) {
        enableTimeSkipping = true;
      } else {
        System.err.println("Unknown flag " + args[1]);
        return;
      }
    }

    // As TestServer.createPortBoundServer(port, !enableTimeSkipping): lockTimeSkipping, 0L.
    TestServicesStarter starter = new TestServicesStarter(!enableTimeSkipping, 0L);
    Server server;
    try {
      NettyServerBuilder builder =
          NettyServerBuilder.forAddress(
              new InetSocketAddress(LOOPBACK, port), InsecureServerCredentials.create());
      GRPCServerHelper.registerServicesAndHealthChecks(starter.getServices(), builder);
      server = builder.build().start();
    } catch (IOException | RuntimeException e) {
      starter.close();
      throw e;
    }

    final Server started = server;
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> close(starter, started), "loopback-test-server-shutdown"));
    started.awaitTermination();
  }

  /** What TestServer.PortBoundTestServer.close() does (its slf4j logging is a no-op here). */
  private static void close(TestServicesStarter starter, Server server) {
    try {
      server.shutdown();
      server.awaitTermination(5, TimeUnit.SECONDS);
      starter.close();
      server.shutdownNow();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
