package dev.kairos.jdbc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SortedStampsTest {

  @Test
  void addAll_mergesWithHeldStamps_eachKeptOnce() {
    SortedStamps s = new SortedStamps();
    s.addAll(new long[] {3, 7, 9}, 3);
    s.addAll(new long[] {1, 7, 8, 20, 99}, 4); // 99 is past the count: not added

    assertEquals(6, s.size());
    for (long held : new long[] {1, 3, 7, 8, 9, 20}) {
      assertTrue(s.contains(held), "holds " + held);
    }
    assertFalse(s.contains(2));
    assertFalse(s.contains(99));
  }

  @Test
  void removeUpTo_dropsTheBoundAndEveryStampBelowIt() {
    SortedStamps s = new SortedStamps();
    s.addAll(new long[] {2, 4, 6, 8}, 4);

    s.removeUpTo(4);
    assertEquals(2, s.size());
    assertFalse(s.contains(4));
    assertTrue(s.contains(6));

    s.removeUpTo(7); // not held: everything below it goes
    assertEquals(1, s.size());
    assertTrue(s.contains(8));

    s.removeUpTo(1); // below every stamp: nothing goes
    assertEquals(1, s.size());
  }

  @Test
  void clear_forgetsEveryStamp() {
    SortedStamps s = new SortedStamps();
    s.addAll(new long[] {5}, 1);

    s.clear();

    assertEquals(0, s.size());
    assertFalse(s.contains(5));
  }

  /** Many reads' worth of adds and trims, checked against a tree set after every step. */
  @Test
  void randomAddsAndTrims_agreeWithATreeSet() {
    Random random = new Random(20261207);
    SortedStamps s = new SortedStamps();
    TreeSet<Long> expected = new TreeSet<>();
    long floor = 0;
    for (int step = 0; step < 2_000; step++) {
      TreeSet<Long> batch = new TreeSet<>();
      int n = random.nextInt(300);
      for (int i = 0; i < n; i++) {
        batch.add(floor + 1 + random.nextInt(5_000));
      }
      long[] sorted = batch.stream().mapToLong(Long::longValue).toArray();
      s.addAll(sorted, sorted.length);
      expected.addAll(batch);
      if (random.nextInt(3) == 0) {
        floor += random.nextInt(2_000);
        s.removeUpTo(floor);
        expected.headSet(floor, true).clear();
      }
      assertEquals(expected.size(), s.size(), "size at step " + step);
      for (int probe = 0; probe < 20; probe++) {
        long stamp = floor - 10 + random.nextInt(5_100);
        assertEquals(expected.contains(stamp), s.contains(stamp), "stamp " + stamp);
      }
    }
  }
}
