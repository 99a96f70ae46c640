// "Reproducible" shuffles the common way: one new Random(seed) per shuffle, seeds 0, 1, 2, ...
// Usage: java JavaSeeds.java [SEEDS] [N]  — prints the first shuffle of 0..N-1 for each seed.
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

public class JavaSeeds {
    public static void main(String[] args) {
        int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        StringBuilder out = new StringBuilder();
        for (long seed = 0; seed < seeds; seed++) {
            List<Integer> deck = new ArrayList<>();
            for (int i = 0; i < n; i++) deck.add(i);
            Collections.shuffle(deck, new Random(seed));
            for (int i = 0; i < n; i++) out.append(i == 0 ? "" : " ").append(deck.get(i));
            out.append('\n');
        }
        System.out.print(out);
    }
}
