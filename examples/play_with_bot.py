"""Play a rules file with bots: seat 1 is the Monte Carlo bot ("mc"), the others play at random.

    python examples/play_with_bot.py                          # examples/pig.rules
    python examples/play_with_bot.py games/pickomino.rules --players 3 --seed 7
"""

import argparse
import random

import rulelang
from rulelang.agents import make_agent, seat_view


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Play a game with one 'mc' bot and random bots.")
    parser.add_argument("rules", nargs="?", default="examples/pig.rules")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1, help="seeds the dice and the bots")
    parser.add_argument("--turns", type=int, default=3, help="how many turns to trace")
    args = parser.parse_args(argv)

    game = rulelang.load(args.rules)
    state = game.new_initial_state(players=args.players)
    bots = [make_agent("mc" if seat == 0 else "random", seed=args.seed + seat)
            for seat in range(args.players)]
    dice = random.Random(args.seed)  # chance belongs to the driver, never to the state
    print(f"{game.name}, {args.players} players: player 1 is the 'mc' bot, the others play at random\n")

    shown = 0  # events printed so far
    while not state.is_terminal():
        turn = state.turn_number
        if state.current_player() == rulelang.CHANCE:
            state.apply_action(state.sample_chance(dice))
        else:
            state.apply_action(bots[state.current_player()].choose(seat_view(state)))
        if turn <= args.turns:  # each line names the rule that caused it, and its file:line
            for line in state.event_lines(shown):
                print("  " + line)
            shown = len(state.events)
    print(f"  ... ({state.turn_number} turns in all)\n")

    names = [game.rules[check.rule].name for check in game.criteria]  # the winner: rules
    for seat, row in enumerate(state.scores()):
        values = ", ".join(f"{name} = {value}" for name, value in zip(names, row, strict=True))
        print(f"player {seat + 1} ({bots[seat].name}): {values}")
    print("winner(s): " + ", ".join(f"player {p + 1}" for p in state.winners))


if __name__ == "__main__":
    main()
