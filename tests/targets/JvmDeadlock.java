// A Java-level deadlock over two monitors: "teller-a" holds ledger and
// wants journal, "teller-b" holds journal and wants ledger (synchronized
// blocks). Prints "ready" once both hold their first monitor; the tests
// then wait for jcmd to report the deadlock.
public class JvmDeadlock {
    static final Object ledger = new Object(), journal = new Object();
    static final java.util.concurrent.CyclicBarrier both = new java.util.concurrent.CyclicBarrier(3);

    static void transfer(Object first, Object second) throws Exception {
        synchronized (first) {
            both.await();
            synchronized (second) {
                System.out.println("never");
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Thread a = new Thread(() -> { try { transfer(ledger, journal); } catch (Exception e) { } }, "teller-a");
        Thread b = new Thread(() -> { try { transfer(journal, ledger); } catch (Exception e) { } }, "teller-b");
        a.start();
        b.start();
        both.await();
        System.out.println("ready");
        System.out.flush();
        a.join();
    }
}
